//! Generates the gRPC code from `proto/strata.proto` with a vendored `protoc`, so building
//! needs no system package.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protoc = protoc_bin_vendored::protoc_bin_path()?;
    std::env::set_var("PROTOC", protoc);
    println!("cargo:rerun-if-changed=proto/strata.proto");
    tonic_prost_build::configure()
        .bytes(".")
        .compile_protos(&["proto/strata.proto"], &["proto"])?;
    Ok(())
}
