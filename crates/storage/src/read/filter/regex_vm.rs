//! The matcher behind [`super::Regex`]: a parsed pattern compiled to a Thompson automaton and
//! run as a Pike VM (every thread in lock step), so a search takes time linear in the text
//! times the program size.

use super::regex::Ast;

/// Most instructions a pattern may compile to.
const MAX_PROGRAM: usize = 10_000;

/// A set of characters: ranges of code points, maybe negated, maybe ASCII case-insensitive.
#[derive(Clone, Debug, Default)]
pub(super) struct CharSet {
    /// Inclusive code-point ranges.
    pub(super) ranges: Vec<(u32, u32)>,
    /// Matches the characters *not* in the ranges.
    pub(super) negated: bool,
    /// Also matches the other ASCII case of a character in the ranges.
    pub(super) fold: bool,
}

impl CharSet {
    /// Adds `lo..=hi`.
    pub(super) fn add(&mut self, lo: char, hi: char) {
        self.ranges.push((lo as u32, hi as u32));
    }

    /// Adds Java's `\d \D \w \W \s \S`.
    pub(super) fn add_shorthand(&mut self, c: char) {
        let base: &[(u32, u32)] = match c.to_ascii_lowercase() {
            'd' => &[(0x30, 0x39)],
            'w' => &[(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)],
            _ => &[(0x09, 0x0D), (0x20, 0x20)], // \s: [ \t\n\x0B\f\r]
        };
        if c.is_ascii_lowercase() {
            self.ranges.extend_from_slice(base);
        } else {
            let mut next = 0;
            for &(lo, hi) in base {
                if lo > next {
                    self.ranges.push((next, lo - 1));
                }
                next = hi + 1;
            }
            self.ranges.push((next, char::MAX as u32));
        }
    }

    fn has(&self, c: char) -> bool {
        let c = c as u32;
        self.ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi)
    }

    /// True if `c` is in the set.
    pub(super) fn contains(&self, c: char) -> bool {
        let hit = self.has(c)
            || (self.fold
                && c.is_ascii_alphabetic()
                && (self.has(c.to_ascii_lowercase()) || self.has(c.to_ascii_uppercase())));
        hit != self.negated
    }
}

#[derive(Clone, Copy, Debug)]
enum Inst {
    Char(char),
    Set(usize),
    Any,
    Start,
    End,
    EndOfText,
    Split(usize, usize),
    Jmp(usize),
    Match,
}

/// A compiled pattern.
#[derive(Clone, Debug)]
pub(super) struct Program {
    insts: Vec<Inst>,
    sets: Vec<CharSet>,
}

impl Program {
    /// Compiles `ast`.
    ///
    /// # Errors
    /// The pattern needs more than [`MAX_PROGRAM`] instructions (large repetition counts).
    pub(super) fn compile(ast: &Ast) -> Result<Program, String> {
        let mut p = Program {
            insts: Vec::new(),
            sets: Vec::new(),
        };
        p.emit(ast)?;
        p.push(Inst::Match)?;
        Ok(p)
    }

    fn push(&mut self, inst: Inst) -> Result<usize, String> {
        if self.insts.len() >= MAX_PROGRAM {
            return Err(format!(
                "pattern too large (over {MAX_PROGRAM} steps once repetitions are expanded)"
            ));
        }
        self.insts.push(inst);
        Ok(self.insts.len() - 1)
    }

    fn emit(&mut self, ast: &Ast) -> Result<(), String> {
        match ast {
            Ast::Empty => {}
            Ast::Char(c) => {
                self.push(Inst::Char(*c))?;
            }
            Ast::Set(set) => {
                self.sets.push(set.clone());
                self.push(Inst::Set(self.sets.len() - 1))?;
            }
            Ast::Any => {
                self.push(Inst::Any)?;
            }
            Ast::Start => {
                self.push(Inst::Start)?;
            }
            Ast::End => {
                self.push(Inst::End)?;
            }
            Ast::EndOfText => {
                self.push(Inst::EndOfText)?;
            }
            Ast::Concat(items) => {
                for item in items {
                    self.emit(item)?;
                }
            }
            Ast::Alt(branches) => {
                let mut exits = Vec::new();
                for (i, branch) in branches.iter().enumerate() {
                    if i + 1 == branches.len() {
                        self.emit(branch)?;
                    } else {
                        let split = self.push(Inst::Split(0, 0))?;
                        self.emit(branch)?;
                        exits.push(self.push(Inst::Jmp(0))?);
                        self.insts[split] = Inst::Split(split + 1, self.insts.len());
                    }
                }
                let end = self.insts.len();
                for exit in exits {
                    self.insts[exit] = Inst::Jmp(end);
                }
            }
            Ast::Repeat { node, min, max } => {
                for _ in 0..*min {
                    self.emit(node)?;
                }
                match max {
                    None => {
                        let split = self.push(Inst::Split(0, 0))?;
                        self.emit(node)?;
                        self.push(Inst::Jmp(split))?;
                        self.insts[split] = Inst::Split(split + 1, self.insts.len());
                    }
                    Some(max) => {
                        let mut splits = Vec::new();
                        for _ in *min..*max {
                            splits.push(self.push(Inst::Split(0, 0))?);
                            self.emit(node)?;
                        }
                        let end = self.insts.len();
                        for split in splits {
                            self.insts[split] = Inst::Split(split + 1, end);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// True if the program matches somewhere in `text` (Java's `Matcher.find`).
    pub(super) fn is_match(&self, text: &str) -> bool {
        let anchored = matches!(self.insts.first(), Some(Inst::Start));
        let mut current = Threads::new(self.insts.len());
        let mut next = Threads::new(self.insts.len());
        let mut stack = Vec::new();
        let mut pos = 0;
        let mut chars = text.chars();
        loop {
            if (pos == 0 || !anchored) && self.add(&mut current, 0, text, pos, &mut stack) {
                return true;
            }
            if current.list.is_empty() && anchored {
                return false;
            }
            let Some(c) = chars.next() else {
                return false;
            };
            let after = pos + c.len_utf8();
            for &pc in &current.list {
                let step = match self.insts[pc] {
                    Inst::Char(x) => x == c,
                    Inst::Set(s) => self.sets[s].contains(c),
                    Inst::Any => true,
                    _ => false,
                };
                if step && self.add(&mut next, pc + 1, text, after, &mut stack) {
                    return true;
                }
            }
            std::mem::swap(&mut current, &mut next);
            next.clear();
            pos = after;
        }
    }

    /// Adds the thread at `pc` and everything reachable from it without consuming a character
    /// at byte position `pos`; true if that reaches `Match`.
    fn add(
        &self,
        threads: &mut Threads,
        pc: usize,
        text: &str,
        pos: usize,
        stack: &mut Vec<usize>,
    ) -> bool {
        stack.clear();
        stack.push(pc);
        while let Some(pc) = stack.pop() {
            if !threads.insert(pc) {
                continue;
            }
            match self.insts[pc] {
                Inst::Match => return true,
                Inst::Jmp(to) => stack.push(to),
                Inst::Split(a, b) => {
                    stack.push(b);
                    stack.push(a);
                }
                Inst::Start if pos == 0 => stack.push(pc + 1),
                Inst::End if at_end(text, pos) => stack.push(pc + 1),
                Inst::EndOfText if pos == text.len() => stack.push(pc + 1),
                _ => {}
            }
        }
        false
    }
}

/// Java's `$` without MULTILINE: at the end, or before a line terminator that ends the text
/// (`\n`, `\r\n`, `\r`, U+0085, U+2028, U+2029), but not between `\r` and `\n`.
fn at_end(text: &str, pos: usize) -> bool {
    let rest = &text[pos..];
    match rest {
        "" | "\r\n" | "\r" | "\u{85}" | "\u{2028}" | "\u{2029}" => true,
        "\n" => !text[..pos].ends_with('\r'),
        _ => false,
    }
}

/// A set of program counters, in insertion order.
struct Threads {
    on: Vec<bool>,
    list: Vec<usize>,
}

impl Threads {
    fn new(n: usize) -> Threads {
        Threads {
            on: vec![false; n],
            list: Vec::new(),
        }
    }

    fn insert(&mut self, pc: usize) -> bool {
        if self.on[pc] {
            return false;
        }
        self.on[pc] = true;
        self.list.push(pc);
        true
    }

    fn clear(&mut self) {
        for &pc in &self.list {
            self.on[pc] = false;
        }
        self.list.clear();
    }
}
