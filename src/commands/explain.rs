//! `affect explain CODE`: the explanation page of a diagnostic code.

use super::{OK, USAGE};
use affect_compiler::codes;

pub fn run(code: &str) -> u8 {
    match codes::lookup(code) {
        Some(info) => {
            print!("{}", info.page);
            OK
        }
        None => {
            eprintln!("error: `{code}` is not a diagnostic code of affect");
            let all: Vec<&str> = codes::CODES.iter().map(|c| c.code).collect();
            if let Some(best) =
                affect_compiler::suggest::closest(&code.to_ascii_uppercase(), all.iter().copied())
            {
                eprintln!("help: did you mean `{best}`?");
            }
            eprintln!("note: the codes are {}", all.join(", "));
            USAGE
        }
    }
}
