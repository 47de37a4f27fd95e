//! Reading the Makefile-style depfile a user processor may write to
//! `$depfile`, the way Ninja's `deps = gcc` reader understands one.
//!
//! Accepted: one or more rules `targets: inputs`, lines continued with a
//! trailing backslash, `#` comment lines, and in paths the escapes `\ ` (space),
//! `\#`, `\:`, `\\` and `$$`. A `:` ends the targets only when followed by
//! white space or the end of the line, so `C:/x` and `a:b` stay paths. Only
//! the inputs matter here: the targets name the processor's `$out`, which the
//! wrapper replaces with the real output.

/// One piece of a rule line.
#[derive(Debug, PartialEq, Eq)]
enum Token {
    /// A path.
    Word(String),
    /// The `:` between targets and inputs.
    Colon,
}

/// Every input named in `text`, in order; the error names the rule line.
pub fn inputs(text: &str) -> Result<Vec<String>, String> {
    let joined = text.replace("\\\r\n", " ").replace("\\\n", " ");
    let mut found = Vec::new();
    for (index, line) in joined.lines().enumerate() {
        if line.trim_start().starts_with('#') {
            continue;
        }
        let tokens = tokenize(line);
        if tokens.is_empty() {
            continue;
        }
        let Some(colon) = tokens.iter().position(|t| *t == Token::Colon) else {
            return Err(format!(
                "rule {}: expected 'target: inputs', found {line:?}",
                index + 1
            ));
        };
        for token in tokens.into_iter().skip(colon + 1) {
            if let Token::Word(word) = token {
                found.push(word);
            }
        }
    }
    Ok(found)
}

/// Splits one logical line into words and colons.
fn tokenize(line: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut word = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if matches!(chars.peek(), Some(' ' | '#' | ':' | '\\')) => {
                word.extend(chars.next());
            }
            '$' if chars.peek() == Some(&'$') => {
                chars.next();
                word.push('$');
            }
            ':' if chars.peek().is_none_or(|n| n.is_whitespace()) => {
                flush(&mut word, &mut tokens);
                tokens.push(Token::Colon);
            }
            c if c.is_whitespace() => flush(&mut word, &mut tokens),
            c => word.push(c),
        }
    }
    flush(&mut word, &mut tokens);
    tokens
}

/// Ends the current word, if any.
fn flush(word: &mut String, tokens: &mut Vec<Token>) {
    if !word.is_empty() {
        tokens.push(Token::Word(std::mem::take(word)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_inputs_of_every_rule() {
        let text = "out.bin: a.tmj \\\n  tiles/my\\ set.tsj\n# comment\nout.bin: c$$d.png C:/x\n";
        assert_eq!(
            inputs(text).unwrap(),
            ["a.tmj", "tiles/my set.tsj", "c$d.png", "C:/x"]
        );
    }

    #[test]
    fn escapes_and_colons() {
        assert_eq!(
            inputs("o: a\\#b a\\:b a\\\\b").unwrap(),
            ["a#b", "a:b", "a\\b"]
        );
        assert_eq!(inputs("o:\n").unwrap(), Vec::<String>::new());
        assert_eq!(inputs("\n\n").unwrap(), Vec::<String>::new());
        assert!(inputs("just words\n").unwrap_err().contains("rule 1"));
    }
}
