//! Words for `/bin/sh`: the quoting of the command lines configure writes
//! into `build.ninja` and of the paths a user processor's command receives.

/// Quotes one word for `/bin/sh`, leaving plain words untouched.
pub fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=+,@%".contains(&b));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Joins words into a shell command line, quoting each one.
pub fn shell_join<S: AsRef<str>>(words: &[S]) -> String {
    words
        .iter()
        .map(|w| shell_quote(w.as_ref()))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_quoting_survives_quotes_and_spaces() {
        assert_eq!(shell_quote("x/y.png"), "x/y.png");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_join(&["a", "b c"]), "a 'b c'");
    }
}
