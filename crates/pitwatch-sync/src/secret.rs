//! Passwords kept out of every message: a connection URL or key=value string shown with its
//! password replaced, in each of the forms PostgreSQL accepts (issue 25).

/// The URL (or key=value settings) with any password replaced by `***`, for messages and
/// logs: the user-info password of a URL, a `password=` query parameter, and a key=value
/// `password=` (quoted or not).
pub fn redact(url: &str) -> String {
    if let Some((scheme, rest)) = url.split_once("://") {
        let (before_query, query) = match rest.split_once('?') {
            Some((b, q)) => (b, Some(q)),
            None => (rest, None),
        };
        let (authority, path) = match before_query.split_once('/') {
            Some((a, p)) => (a, Some(p)),
            None => (before_query, None),
        };
        let authority = match authority.rsplit_once('@') {
            Some((auth, host)) => match auth.split_once(':') {
                Some((user, _)) => format!("{user}:***@{host}"),
                None => format!("{auth}@{host}"),
            },
            None => authority.to_owned(),
        };
        let mut out = format!("{scheme}://{authority}");
        if let Some(path) = path {
            out.push('/');
            out.push_str(path);
        }
        if let Some(query) = query {
            let pairs: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=***"),
                    _ => pair.to_owned(),
                })
                .collect();
            out.push('?');
            out.push_str(&pairs.join("&"));
        }
        return out;
    }
    // key=value settings: a value may be quoted ('…', with \' and \\ inside).
    let mut out = String::with_capacity(url.len());
    let mut rest = url;
    while let Some(at) = find_key(rest, "password") {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        let eq = after.find('=').map_or(after.len(), |i| i + 1);
        out.push_str(&after[..eq]);
        let value = after[eq..].trim_start();
        let skipped = after[eq..].len() - value.len();
        out.push_str(&after[eq..eq + skipped]);
        out.push_str("***");
        let end = if let Some(quoted) = value.strip_prefix('\'') {
            let mut escaped = false;
            let mut end = value.len();
            for (i, c) in quoted.char_indices() {
                match c {
                    '\\' if !escaped => escaped = true,
                    '\'' if !escaped => {
                        end = i + 2;
                        break;
                    }
                    _ => escaped = false,
                }
            }
            end
        } else {
            value.find(char::is_whitespace).unwrap_or(value.len())
        };
        rest = &value[end..];
    }
    out.push_str(rest);
    out
}

/// Where `key` (followed by optional spaces and `=`) starts a word of `text`.
fn find_key(text: &str, key: &str) -> Option<usize> {
    let lower = text.to_ascii_lowercase();
    let mut from = 0;
    while let Some(i) = lower[from..].find(key) {
        let at = from + i;
        let starts_word = at == 0 || lower.as_bytes()[at - 1].is_ascii_whitespace();
        let follows = lower[at + key.len()..].trim_start().starts_with('=');
        if starts_word && follows {
            return Some(at);
        }
        from = at + key.len();
    }
    None
}
