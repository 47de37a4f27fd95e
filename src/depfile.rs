//! Makefile-style depfiles that Ninja's `deps = gcc` parser reads: written by
//! every encoder, and read back by the cache to learn what an edge read.
//!
//! A depfile names one target (the edge's first output) and every file the
//! edge read. In paths, a space is written `\ `, `#` is `\#`, `$` is `$$` and
//! `:` is `\:`; backslashes never reach this point because configure refuses
//! them in source names.

/// Escapes one path for a depfile.
pub fn escape(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        match c {
            ' ' => out.push_str("\\ "),
            '#' => out.push_str("\\#"),
            ':' => out.push_str("\\:"),
            '$' => out.push_str("$$"),
            _ => out.push(c),
        }
    }
    out
}

/// Renders the depfile text for `target` depending on `deps`.
pub fn render<S: AsRef<str>>(target: &str, deps: &[S]) -> String {
    let mut text = escape(target);
    text.push(':');
    for dep in deps {
        text.push_str(" \\\n  ");
        text.push_str(&escape(dep.as_ref()));
    }
    text.push('\n');
    text
}

/// Reads back what [`render`] wrote: the target and its dependencies, with
/// the escapes undone. `None` when the text is not one `target: deps` rule.
pub fn parse(text: &str) -> Option<(String, Vec<String>)> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut chars = text.chars().peekable();
    let mut target_end = None;
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('\n') => finish_word(&mut words, &mut word),
                Some(escaped @ (' ' | '#' | ':')) => word.push(escaped),
                _ => return None,
            },
            '$' if chars.peek() == Some(&'$') => {
                chars.next();
                word.push('$');
            }
            ':' if target_end.is_none() => {
                finish_word(&mut words, &mut word);
                target_end = Some(words.len());
            }
            ' ' | '\n' => finish_word(&mut words, &mut word),
            other => word.push(other),
        }
    }
    finish_word(&mut words, &mut word);
    if target_end != Some(1) {
        return None;
    }
    let deps = words.split_off(1);
    words.pop().map(|target| (target, deps))
}

/// The files an encoder's depfile names besides its input (always listed
/// first): what the edge read from elsewhere. `None` for a malformed text.
pub fn extra_inputs(text: &str) -> Option<Vec<String>> {
    let (_, deps) = parse(text)?;
    Some(deps.into_iter().skip(1).collect())
}

fn finish_word(words: &mut Vec<String>, word: &mut String) {
    if !word.is_empty() {
        words.push(std::mem::take(word));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_reads_back_what_render_wrote() {
        let deps = ["in/x y.png", "a#b:c$d.png", "plain.bin"];
        let text = render("out/a b.ktx2", &deps);
        let (target, read) = parse(&text).unwrap();
        assert_eq!(target, "out/a b.ktx2");
        assert_eq!(read, deps);
        assert_eq!(parse("out.ktx2:\n"), Some(("out.ktx2".into(), vec![])));
        assert_eq!(parse("no rule here"), None);
        assert_eq!(parse("a: b\\q"), None);
        assert_eq!(
            extra_inputs(&text),
            Some(deps[1..].iter().map(|d| d.to_string()).collect())
        );
        assert_eq!(extra_inputs("x:\n"), Some(vec![]));
    }

    #[test]
    fn escapes_every_special_character() {
        assert_eq!(escape("a b#c:d$e"), "a\\ b\\#c\\:d$$e");
    }

    #[test]
    fn renders_one_dependency_per_line() {
        assert_eq!(
            render("out/x.ktx2", &["in/x y.png", "in/z.png"]),
            "out/x.ktx2: \\\n  in/x\\ y.png \\\n  in/z.png\n"
        );
    }
}
