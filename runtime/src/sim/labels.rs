//! The grid's place labels as the program's string symbols, and the text of a symbol.

use crate::world::World;
use affect_compiler::ir::program::Program;

/// Grid labels and their string symbols.
pub struct Labels {
    pairs: Vec<(char, u32)>,
}

impl Labels {
    pub fn new(program: &Program, world: Option<&World>) -> Labels {
        let mut pairs = Vec::new();
        if let Some(g) = world.and_then(|w| w.spec().grid()) {
            for c in g.labels.iter().flatten() {
                if let Some(s) = program.symbol(&c.to_string()) {
                    if !pairs.iter().any(|(x, _)| x == c) {
                        pairs.push((*c, s));
                    }
                }
            }
        }
        Labels { pairs }
    }

    pub fn symbol_of(&self, c: char) -> Option<u32> {
        self.pairs.iter().find(|(x, _)| *x == c).map(|(_, s)| *s)
    }

    pub fn char_of(&self, symbol: f64) -> Option<char> {
        if symbol.is_nan() || symbol < 0.0 {
            return None;
        }
        let s = symbol as u32;
        self.pairs.iter().find(|(_, x)| *x == s).map(|(c, _)| *c)
    }

    pub fn symbols(&self) -> impl Iterator<Item = u32> + '_ {
        self.pairs.iter().map(|(_, s)| *s)
    }
}

/// The text of a string symbol (empty for none).
pub fn symbol_text(program: &Program, symbol: f64) -> &str {
    if symbol.is_nan() || symbol < 0.0 {
        return "";
    }
    program
        .strings
        .get(symbol as usize)
        .map_or("", String::as_str)
}
