//! End-to-end tests of the `fpforge` binary, one module per area: real C fixtures
//! compiled by clang-14, checked for results, exit codes, one-line errors, and output
//! files that the tools users open (`fpforge run`, gcc and gcov, a JSON schema) accept.

mod accuracy;
mod basics;
mod ci;
mod common;
mod consistency;
mod cover;
mod cpp;
mod crash;
mod csmith;
mod elsewhere;
mod exhaustive;
mod explore;
mod fenv;
mod findings;
mod fortran;
mod gcov;
mod html;
mod libc;
mod library;
mod long_double;
mod project;
mod reports;
mod shapes_diff;
mod shards;
mod structs;
mod triage;
