//! Generates the HBase message types from `proto/hbase.proto` with a vendored `protoc`, so
//! building needs no system package.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protoc = protoc_bin_vendored::protoc_bin_path()?;
    std::env::set_var("PROTOC", protoc);
    println!("cargo:rerun-if-changed=proto/hbase.proto");
    tonic_prost_build::configure()
        .build_client(false)
        .build_server(false)
        .bytes(".")
        .compile_protos(&["proto/hbase.proto"], &["proto"])?;
    Ok(())
}
