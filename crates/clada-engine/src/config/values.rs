//! The values of configuration keys and flags that are not plain YAML: durations (`500ms`,
//! `30s`, `2m`) and sizes (`512k`, `10MiB`), with their limits, for serde and for clap.

use super::*;

/// A duration: a number of seconds, or a string `500ms`, `30s`, `2m`, `1h`; positive and at
/// most [`MAX_DURATION`].
pub(super) fn parse_duration(s: &str) -> Option<Duration> {
    let s = s.trim();
    let (num, unit) = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .map(|i| (&s[..i], s[i..].trim()))
        .unwrap_or((s, "s"));
    let n: f64 = num.parse().ok()?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" | "" => n,
        "m" | "min" => n * 60.0,
        "h" => n * 3600.0,
        _ => return None,
    };
    duration_from_secs(secs)
}

/// `secs` as a duration when it is positive and at most [`MAX_DURATION`] (checked before
/// `Duration::from_secs_f64`, which panics on values past `u64` seconds).
pub(super) fn duration_from_secs(secs: f64) -> Option<Duration> {
    (secs.is_finite() && secs > 0.0 && secs <= MAX_DURATION.as_secs_f64())
        .then(|| Duration::from_secs_f64(secs))
        .filter(|d| !d.is_zero())
}

pub(super) struct DurationVisitor;

impl Visitor<'_> for DurationVisitor {
    type Value = Duration;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(
            "a positive duration of at most a day: seconds as a number (at most 86400), or a string like `500ms`, `30s`, `2m`, `1h`",
        )
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Duration, E> {
        if v == 0 || v > MAX_DURATION.as_secs() {
            return Err(E::invalid_value(de::Unexpected::Unsigned(v), &self));
        }
        Ok(Duration::from_secs(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Duration, E> {
        match u64::try_from(v) {
            Ok(v) => self.visit_u64(v),
            Err(_) => Err(E::invalid_value(de::Unexpected::Signed(v), &self)),
        }
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Duration, E> {
        let shown = format!("{v:e}");
        duration_from_secs(v).ok_or_else(|| E::invalid_value(de::Unexpected::Other(&shown), &self))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Duration, E> {
        parse_duration(v).ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self))
    }
}

pub(super) fn opt_duration<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    d.deserialize_any(DurationVisitor).map(Some)
}

/// A size in bytes: a number, or a string `512k`, `10MiB`, `10MB` (powers of 1024); positive
/// and at most [`MAX_SIZE`].
pub fn parse_size(s: &str) -> Option<usize> {
    let s = s.trim();
    let i = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let n: usize = s[..i].parse().ok()?;
    let mult: usize = match s[i..].trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1024,
        "m" | "mb" | "mib" => 1024 * 1024,
        "g" | "gb" | "gib" => 1024 * 1024 * 1024,
        _ => return None,
    };
    n.checked_mul(mult).filter(|&b| b > 0 && b <= MAX_SIZE)
}

/// Parses a `--timeout`-style value (for clap).
pub fn duration_arg(s: &str) -> Result<Duration, String> {
    parse_duration(s).ok_or_else(|| {
        format!("'{s}' is not a duration of at most a day; give seconds (30) or a unit (500ms, 30s, 2m, 1h)")
    })
}

/// Parses a `--max-output`-style value (for clap).
pub fn size_arg(s: &str) -> Result<usize, String> {
    parse_size(s).ok_or_else(|| {
        format!("'{s}' is not a size of at most 1GiB; give bytes (1048576) or a unit (512k, 10MiB)")
    })
}

pub(super) fn opt_size<'de, D: Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
    struct V;
    impl Visitor<'_> for V {
        type Value = usize;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a positive size of at most 1GiB: bytes as a number, or a string like `512k`, `10MiB`")
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<usize, E> {
            usize::try_from(v)
                .ok()
                .filter(|&v| v > 0 && v <= MAX_SIZE)
                .ok_or_else(|| E::invalid_value(de::Unexpected::Unsigned(v), &self))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<usize, E> {
            usize::try_from(v)
                .ok()
                .filter(|&v| v > 0 && v <= MAX_SIZE)
                .ok_or_else(|| E::invalid_value(de::Unexpected::Signed(v), &self))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<usize, E> {
            parse_size(v).ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self))
        }
    }
    d.deserialize_any(V).map(Some)
}
