//! One module per subcommand: parse its flags, call the libraries, print its report.

pub mod accuracy;
pub mod cover;
pub mod explore;
pub mod ir;
pub mod reach;
pub mod run;
pub mod sites;
pub mod solve;
