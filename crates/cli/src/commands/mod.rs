//! One module per subcommand: parse its flags, call the libraries, print its report.

pub mod cover;
pub mod ir;
pub mod run;
pub mod sites;
pub mod solve;
