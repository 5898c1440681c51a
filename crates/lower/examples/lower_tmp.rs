//! Temporary.
fn main() {
    let paths: Vec<std::path::PathBuf> = std::env::args().skip(1).map(Into::into).collect();
    let flags: Vec<String> = std::env::var("FLAGS").unwrap_or_default().split_whitespace().map(String::from).collect();
    let opts = fpforge_lower::LoadOptions::default().with_compiler_flags(flags);
    let t = std::time::Instant::now();
    match fpforge_lower::load(&paths, &opts) {
        Ok(m) => {
            if std::env::var("QUIET").is_err() { print!("{}", fpir::write_module(&m)); }
            eprintln!("ok: {} funcs, {} branch sites, {} op sites, {} externals {:?} in {:?}", m.funcs.len(), m.branch_sites.len(), m.op_sites.len(), m.externals.len(), m.externals, t.elapsed());
        }
        Err(e) => eprintln!("error: {e}"),
    }
}
