// The drop-in answers to the name programs link: a dynamic loader that meets libblas.so.3 in a
// library's NEEDED list takes an already loaded object of that SONAME (a LAPACK loaded later
// binds its BLAS calls to gpublas).
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libblas.so.3");
}
