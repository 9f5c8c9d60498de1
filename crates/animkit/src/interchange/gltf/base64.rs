//! Base64 (RFC 4648), for buffers embedded in glTF JSON as `data:` URIs.

/// Standard base64 with padding.
pub fn base64_encode(data: &[u8]) -> String {
    // The digit for the low 6 bits of `n`.
    let digit = |n: u32| {
        let v = (n & 63) as u8;
        char::from(match v {
            0..=25 => b'A' + v,
            26..=51 => b'a' + (v - 26),
            52..=61 => b'0' + (v - 52),
            62 => b'+',
            _ => b'/',
        })
    };
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let mut b = [0u8; 3];
        b.iter_mut().zip(chunk).for_each(|(d, &s)| *d = s);
        let [b0, b1, b2] = b;
        let n = (u32::from(b0) << 16) | (u32::from(b1) << 8) | u32::from(b2);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(digit(n >> (18 - 6 * i)));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Decodes standard (or URL-safe) base64; padding optional, whitespace not allowed.
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// The bytes of a `data:` URI (base64 only).
pub(super) fn data_uri(uri: &str) -> Option<Vec<u8>> {
    let rest = uri.strip_prefix("data:")?;
    let (_, payload) = rest.split_once(";base64,")?;
    base64_decode(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648_vectors() {
        // RFC 4648 §10.
        for (plain, enc) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64_encode(plain.as_bytes()), enc);
            assert_eq!(base64_decode(enc).unwrap(), plain.as_bytes());
        }
        assert!(base64_decode("Zm9v!").is_none());
    }
}
