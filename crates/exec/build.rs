//! Compiles `csrc/long_double.c`, the calls of the host C library's `long double`
//! functions (see `src/libm_f80.rs`).

fn main() {
    println!("cargo:rerun-if-changed=csrc/long_double.c");
    cc::Build::new()
        .file("csrc/long_double.c")
        .warnings(true)
        .compile("fpforge_long_double");
}
