//! The binding: the few `gss_*` functions of MIT's `libgssapi_krb5.so.2` Strata calls, loaded
//! once at run time, and the owned handles (names, credentials, contexts, buffers) that release
//! what the library allocated. Everything unsafe in Strata is in this module.
#![allow(unsafe_code)]

use std::ffi::{c_char, c_int, c_void, CString};
use std::path::Path;
use std::ptr;
use std::sync::OnceLock;

use crate::Error;

type Minor = *mut u32;
type Handle = *mut c_void;

#[repr(C)]
struct Buffer {
    length: usize,
    value: *mut c_void,
}

impl Buffer {
    fn empty() -> Buffer {
        Buffer {
            length: 0,
            value: ptr::null_mut(),
        }
    }

    /// A view of `bytes` for an input argument (the library does not write through it).
    fn of(bytes: &[u8]) -> Buffer {
        Buffer {
            length: bytes.len(),
            value: bytes.as_ptr().cast_mut().cast(),
        }
    }
}

#[repr(C)]
struct Oid {
    length: u32,
    elements: *mut c_void,
}

#[repr(C)]
struct OidSet {
    count: usize,
    elements: *mut Oid,
}

#[repr(C)]
struct KeyValue {
    key: *const c_char,
    value: *const c_char,
}

#[repr(C)]
struct KeyValueSet {
    count: u32,
    elements: *const KeyValue,
}

/// The Kerberos 5 mechanism, 1.2.840.113554.1.2.2.
const KRB5_MECH: [u8; 9] = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02];
/// Kerberos principal names (`primary/instance@REALM`), 1.2.840.113554.1.2.2.1.
const KRB5_PRINCIPAL_NAME: [u8; 10] = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02, 0x01];

const GSS_C_INITIATE: c_int = 1;
const GSS_C_ACCEPT: c_int = 2;
const GSS_C_GSS_CODE: c_int = 1;
const GSS_C_MECH_CODE: c_int = 2;
const GSS_C_INDEFINITE: u32 = u32::MAX;
const GSS_C_MUTUAL_FLAG: u32 = 2;
const GSS_C_REPLAY_FLAG: u32 = 4;
const GSS_C_SEQUENCE_FLAG: u32 = 8;
const GSS_C_CONF_FLAG: u32 = 16;
const GSS_C_INTEG_FLAG: u32 = 32;
const GSS_S_CONTINUE_NEEDED: u32 = 1;

fn failed(major: u32) -> bool {
    major & 0xffff_0000 != 0
}

type ImportName = unsafe extern "C" fn(Minor, *mut Buffer, *mut Oid, *mut Handle) -> u32;
type ReleaseName = unsafe extern "C" fn(Minor, *mut Handle) -> u32;
type DisplayName = unsafe extern "C" fn(Minor, Handle, *mut Buffer, *mut *mut Oid) -> u32;
type AcquireCredFrom = unsafe extern "C" fn(
    Minor,
    Handle,
    u32,
    *mut OidSet,
    c_int,
    *const KeyValueSet,
    *mut Handle,
    *mut *mut OidSet,
    *mut u32,
) -> u32;
type ReleaseCred = unsafe extern "C" fn(Minor, *mut Handle) -> u32;
type AcceptSecContext = unsafe extern "C" fn(
    Minor,
    *mut Handle,
    Handle,
    *mut Buffer,
    *mut c_void,
    *mut Handle,
    *mut *mut Oid,
    *mut Buffer,
    *mut u32,
    *mut u32,
    *mut Handle,
) -> u32;
type InitSecContext = unsafe extern "C" fn(
    Minor,
    Handle,
    *mut Handle,
    Handle,
    *mut Oid,
    u32,
    u32,
    *mut c_void,
    *mut Buffer,
    *mut *mut Oid,
    *mut Buffer,
    *mut u32,
    *mut u32,
) -> u32;
type DeleteSecContext = unsafe extern "C" fn(Minor, *mut Handle, *mut Buffer) -> u32;
type Wrap =
    unsafe extern "C" fn(Minor, Handle, c_int, u32, *mut Buffer, *mut c_int, *mut Buffer) -> u32;
type Unwrap =
    unsafe extern "C" fn(Minor, Handle, *mut Buffer, *mut Buffer, *mut c_int, *mut u32) -> u32;
type ReleaseBuffer = unsafe extern "C" fn(Minor, *mut Buffer) -> u32;
type DisplayStatus =
    unsafe extern "C" fn(Minor, u32, c_int, *mut Oid, *mut u32, *mut Buffer) -> u32;

/// The library's functions (the library stays loaded for the process's life).
struct Lib {
    _lib: libloading::Library,
    import_name: ImportName,
    release_name: ReleaseName,
    display_name: DisplayName,
    acquire_cred_from: AcquireCredFrom,
    release_cred: ReleaseCred,
    accept_sec_context: AcceptSecContext,
    init_sec_context: InitSecContext,
    delete_sec_context: DeleteSecContext,
    wrap: Wrap,
    unwrap: Unwrap,
    release_buffer: ReleaseBuffer,
    display_status: DisplayStatus,
}

/// The library's file name (Debian's `libgssapi-krb5-2`).
pub const LIBRARY: &str = "libgssapi_krb5.so.2";

fn lib() -> Result<&'static Lib, Error> {
    static LIB: OnceLock<Result<Lib, String>> = OnceLock::new();
    LIB.get_or_init(|| {
        // SAFETY: loading MIT's GSSAPI library runs only its initializers, which have no
        // preconditions; every symbol is then read with the C signature of RFC 2744 / MIT's
        // gssapi.h (gss_acquire_cred_from: gssapi_ext.h).
        unsafe {
            let lib = libloading::Library::new(LIBRARY).map_err(|e| {
                format!("{LIBRARY} cannot be loaded ({e}); install Debian's libgssapi-krb5-2")
            })?;
            macro_rules! sym {
                ($name:literal) => {
                    *lib.get(concat!($name, "\0").as_bytes())
                        .map_err(|e| format!("{LIBRARY} has no {}: {e}", $name))?
                };
            }
            Ok(Lib {
                import_name: sym!("gss_import_name"),
                release_name: sym!("gss_release_name"),
                display_name: sym!("gss_display_name"),
                acquire_cred_from: sym!("gss_acquire_cred_from"),
                release_cred: sym!("gss_release_cred"),
                accept_sec_context: sym!("gss_accept_sec_context"),
                init_sec_context: sym!("gss_init_sec_context"),
                delete_sec_context: sym!("gss_delete_sec_context"),
                wrap: sym!("gss_wrap"),
                unwrap: sym!("gss_unwrap"),
                release_buffer: sym!("gss_release_buffer"),
                display_status: sym!("gss_display_status"),
                _lib: lib,
            })
        }
    })
    .as_ref()
    .map_err(|e| Error::new("loading GSSAPI", 0, e.clone()))
}

/// Whether the system's GSSAPI library can be loaded.
pub fn available() -> Result<(), Error> {
    lib().map(|_| ())
}

/// The library's messages for a major and minor status.
fn status_text(lib: &Lib, major: u32, minor: u32) -> String {
    let mut parts = Vec::new();
    for (code, kind) in [(major, GSS_C_GSS_CODE), (minor, GSS_C_MECH_CODE)] {
        if code == 0 {
            continue;
        }
        let mut ctx = 0u32;
        for _ in 0..8 {
            let mut m = 0u32;
            let mut buf = Buffer::empty();
            let mut mech = Oid {
                length: KRB5_MECH.len() as u32,
                elements: KRB5_MECH.as_ptr().cast_mut().cast(),
            };
            // SAFETY: every pointer is to a live local; the buffer is released below.
            let r =
                unsafe { (lib.display_status)(&mut m, code, kind, &mut mech, &mut ctx, &mut buf) };
            if failed(r) {
                break;
            }
            let text = take(lib, &mut buf);
            let text = String::from_utf8_lossy(&text).trim().to_owned();
            if !text.is_empty() && !parts.contains(&text) {
                parts.push(text);
            }
            if ctx == 0 {
                break;
            }
        }
    }
    if parts.is_empty() {
        format!("GSSAPI status {major:#x}/{minor}")
    } else {
        parts.join(": ")
    }
}

fn check(lib: &Lib, what: &'static str, major: u32, minor: u32) -> Result<u32, Error> {
    if failed(major) {
        Err(Error::new(what, major, status_text(lib, major, minor)))
    } else {
        Ok(major)
    }
}

/// Copies out and releases a buffer the library allocated.
fn take(lib: &Lib, buf: &mut Buffer) -> Vec<u8> {
    let out = if buf.value.is_null() || buf.length == 0 {
        Vec::new()
    } else {
        // SAFETY: the library filled `buf` with `length` readable bytes at `value`.
        unsafe { std::slice::from_raw_parts(buf.value.cast::<u8>(), buf.length) }.to_vec()
    };
    let mut m = 0u32;
    // SAFETY: `buf` came from the library (or is empty, which it ignores).
    unsafe { (lib.release_buffer)(&mut m, buf) };
    out
}

/// An imported Kerberos principal name.
struct Name(Handle);

impl Name {
    fn import(lib: &Lib, principal: &str) -> Result<Name, Error> {
        let mut m = 0u32;
        let mut input = Buffer::of(principal.as_bytes());
        let mut oid = Oid {
            length: KRB5_PRINCIPAL_NAME.len() as u32,
            elements: KRB5_PRINCIPAL_NAME.as_ptr().cast_mut().cast(),
        };
        let mut name: Handle = ptr::null_mut();
        // SAFETY: input and oid point to live locals the library only reads; `name` receives
        // a handle released by Drop.
        let r = unsafe { (lib.import_name)(&mut m, &mut input, &mut oid, &mut name) };
        check(lib, "importing the principal name", r, m)?;
        Ok(Name(name))
    }

    fn display(&self, lib: &Lib) -> Result<String, Error> {
        let mut m = 0u32;
        let mut buf = Buffer::empty();
        // SAFETY: `self.0` is a live name; the buffer is released by `take`.
        let r = unsafe { (lib.display_name)(&mut m, self.0, &mut buf, ptr::null_mut()) };
        check(lib, "displaying the client's name", r, m)?;
        String::from_utf8(take(lib, &mut buf))
            .map_err(|_| Error::new("displaying the client's name", 0, "not UTF-8".into()))
    }
}

impl Drop for Name {
    fn drop(&mut self) {
        if let Ok(lib) = lib() {
            let mut m = 0u32;
            // SAFETY: a live handle from gss_import_name or gss_accept_sec_context.
            unsafe { (lib.release_name)(&mut m, &mut self.0) };
        }
    }
}

/// Credentials: an acceptor's keys from a keytab, or an initiator's default credentials.
pub(crate) struct Cred(Handle);

// SAFETY: MIT's credential handles lock themselves (k5_mutex in krb5_gss_cred_id_rec), so one
// handle may be used from several threads at once.
unsafe impl Send for Cred {}
// SAFETY: as above.
unsafe impl Sync for Cred {}

impl Cred {
    /// The keys of `principal` in `keytab`, to accept contexts for it.
    pub(crate) fn acceptor(principal: &str, keytab: &Path) -> Result<Cred, Error> {
        let lib = lib()?;
        let name = Name::import(lib, principal)?;
        let path = keytab.to_str().ok_or_else(|| {
            Error::new(
                "reading the keytab",
                0,
                "the keytab path is not UTF-8".into(),
            )
        })?;
        let key = CString::new("keytab").map_err(|_| Error::nul())?;
        let value = CString::new(path).map_err(|_| Error::nul())?;
        let elements = [KeyValue {
            key: key.as_ptr(),
            value: value.as_ptr(),
        }];
        let store = KeyValueSet {
            count: 1,
            elements: elements.as_ptr(),
        };
        let mut mech = Oid {
            length: KRB5_MECH.len() as u32,
            elements: KRB5_MECH.as_ptr().cast_mut().cast(),
        };
        let mut mechs = OidSet {
            count: 1,
            elements: &mut mech,
        };
        let mut m = 0u32;
        let mut cred: Handle = ptr::null_mut();
        // SAFETY: all inputs point to live locals the library only reads; `cred` receives a
        // handle released by Drop.
        let r = unsafe {
            (lib.acquire_cred_from)(
                &mut m,
                name.0,
                GSS_C_INDEFINITE,
                &mut mechs,
                GSS_C_ACCEPT,
                &store,
                &mut cred,
                ptr::null_mut(),
                ptr::null_mut(),
            )
        };
        check(lib, "reading the keytab", r, m)?;
        Ok(Cred(cred))
    }

    /// The process's default initiator credentials (the ticket cache KRB5CCNAME names).
    fn initiator(lib: &Lib) -> Result<Cred, Error> {
        let mut mech = Oid {
            length: KRB5_MECH.len() as u32,
            elements: KRB5_MECH.as_ptr().cast_mut().cast(),
        };
        let mut mechs = OidSet {
            count: 1,
            elements: &mut mech,
        };
        let mut m = 0u32;
        let mut cred: Handle = ptr::null_mut();
        // SAFETY: as in `acceptor`; no name and no store: the defaults.
        let r = unsafe {
            (lib.acquire_cred_from)(
                &mut m,
                ptr::null_mut(),
                GSS_C_INDEFINITE,
                &mut mechs,
                GSS_C_INITIATE,
                ptr::null(),
                &mut cred,
                ptr::null_mut(),
                ptr::null_mut(),
            )
        };
        check(lib, "finding the client's credentials", r, m)?;
        Ok(Cred(cred))
    }
}

impl Drop for Cred {
    fn drop(&mut self) {
        if let Ok(lib) = lib() {
            let mut m = 0u32;
            // SAFETY: a live handle from gss_acquire_cred_from.
            unsafe { (lib.release_cred)(&mut m, &mut self.0) };
        }
    }
}

/// What one step of a context's establishment produced.
#[derive(Debug)]
pub enum Step {
    /// A token for the peer; more of its tokens are needed.
    Continue(Vec<u8>),
    /// Established; a last token for the peer (possibly empty).
    Complete(Vec<u8>),
}

/// One security context, accepting (a server's) or initiating (a client's).
pub struct Context {
    handle: Handle,
    target: Option<Name>,
    initiator: Option<Cred>,
    established: bool,
    peer: Option<String>,
}

// SAFETY: a context is used by one thread at a time (its methods take `&mut self`); MIT's
// contexts hold no thread-local state.
unsafe impl Send for Context {}

impl Context {
    /// A context to accept.
    pub(crate) fn accepting() -> Context {
        Context {
            handle: ptr::null_mut(),
            target: None,
            initiator: None,
            established: false,
            peer: None,
        }
    }

    /// A context to initiate towards `target` (a principal, `service/host@REALM`) with the
    /// default credentials.
    pub(crate) fn initiating(target: &str) -> Result<Context, Error> {
        let lib = lib()?;
        Ok(Context {
            handle: ptr::null_mut(),
            target: Some(Name::import(lib, target)?),
            initiator: Some(Cred::initiator(lib)?),
            established: false,
            peer: None,
        })
    }

    /// Whether established.
    pub fn is_established(&self) -> bool {
        self.established
    }

    /// The authenticated client's principal (an accepted, established context).
    pub fn peer(&self) -> Option<&str> {
        self.peer.as_deref()
    }

    /// Accepts the client's `token` with `cred`.
    pub(crate) fn accept(&mut self, cred: &Cred, token: &[u8]) -> Result<Step, Error> {
        let lib = lib()?;
        if self.established {
            return Err(Error::new(
                "accepting",
                0,
                "the context is established".into(),
            ));
        }
        let mut m = 0u32;
        let mut input = Buffer::of(token);
        let mut output = Buffer::empty();
        let mut src: Handle = ptr::null_mut();
        // SAFETY: `self.handle` is null or a live context of this library; the input is only
        // read; output and src are released below.
        let r = unsafe {
            (lib.accept_sec_context)(
                &mut m,
                &mut self.handle,
                cred.0,
                &mut input,
                ptr::null_mut(),
                &mut src,
                ptr::null_mut(),
                &mut output,
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
            )
        };
        let out = take(lib, &mut output);
        let src = (!src.is_null()).then_some(Name(src));
        check(lib, "accepting the client's Kerberos token", r, m)?;
        if r & GSS_S_CONTINUE_NEEDED != 0 {
            return Ok(Step::Continue(out));
        }
        let src = src.ok_or_else(|| Error::new("accepting", 0, "no client name".into()))?;
        self.peer = Some(src.display(lib)?);
        self.established = true;
        Ok(Step::Complete(out))
    }

    /// Initiates, given the server's last token (none at first).
    pub(crate) fn initiate(&mut self, token: &[u8]) -> Result<Step, Error> {
        let lib = lib()?;
        let (Some(target), Some(cred)) = (&self.target, &self.initiator) else {
            return Err(Error::new(
                "initiating",
                0,
                "not an initiating context".into(),
            ));
        };
        let mut m = 0u32;
        let mut input = Buffer::of(token);
        let mut output = Buffer::empty();
        let mut mech = Oid {
            length: KRB5_MECH.len() as u32,
            elements: KRB5_MECH.as_ptr().cast_mut().cast(),
        };
        let flags = GSS_C_MUTUAL_FLAG
            | GSS_C_REPLAY_FLAG
            | GSS_C_SEQUENCE_FLAG
            | GSS_C_INTEG_FLAG
            | GSS_C_CONF_FLAG;
        // SAFETY: as in `accept`.
        let r = unsafe {
            (lib.init_sec_context)(
                &mut m,
                cred.0,
                &mut self.handle,
                target.0,
                &mut mech,
                flags,
                0,
                ptr::null_mut(),
                &mut input,
                ptr::null_mut(),
                &mut output,
                ptr::null_mut(),
                ptr::null_mut(),
            )
        };
        let out = take(lib, &mut output);
        check(lib, "initiating a Kerberos context", r, m)?;
        if r & GSS_S_CONTINUE_NEEDED != 0 {
            return Ok(Step::Continue(out));
        }
        self.established = true;
        Ok(Step::Complete(out))
    }

    /// Wraps `data` for the peer: signed, and encrypted if `confidential`.
    ///
    /// # Errors
    /// The context is not established, or the library failed.
    pub fn wrap(&mut self, data: &[u8], confidential: bool) -> Result<Vec<u8>, Error> {
        let lib = lib()?;
        let mut m = 0u32;
        let mut input = Buffer::of(data);
        let mut output = Buffer::empty();
        let mut conf: c_int = 0;
        // SAFETY: a live context; input only read; output released by `take`.
        let r = unsafe {
            (lib.wrap)(
                &mut m,
                self.handle,
                c_int::from(confidential),
                0,
                &mut input,
                &mut conf,
                &mut output,
            )
        };
        let out = take(lib, &mut output);
        check(lib, "wrapping", r, m)?;
        Ok(out)
    }

    /// Unwraps the peer's `token`: its data and whether it was encrypted.
    ///
    /// # Errors
    /// A token that does not verify (altered, replayed, another context's), or no context.
    pub fn unwrap(&mut self, token: &[u8]) -> Result<(Vec<u8>, bool), Error> {
        let lib = lib()?;
        let mut m = 0u32;
        let mut input = Buffer::of(token);
        let mut output = Buffer::empty();
        let mut conf: c_int = 0;
        let mut qop = 0u32;
        // SAFETY: as in `wrap`.
        let r = unsafe {
            (lib.unwrap)(
                &mut m,
                self.handle,
                &mut input,
                &mut output,
                &mut conf,
                &mut qop,
            )
        };
        let out = take(lib, &mut output);
        check(lib, "unwrapping", r, m)?;
        Ok((out, conf != 0))
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        if self.handle.is_null() {
            return;
        }
        if let Ok(lib) = lib() {
            let mut m = 0u32;
            // SAFETY: a live context of this library.
            unsafe { (lib.delete_sec_context)(&mut m, &mut self.handle, ptr::null_mut()) };
        }
    }
}
