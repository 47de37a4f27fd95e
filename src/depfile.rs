//! Writing Makefile-style depfiles that Ninja's `deps = gcc` parser reads back.
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

#[cfg(test)]
mod tests {
    use super::*;

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
