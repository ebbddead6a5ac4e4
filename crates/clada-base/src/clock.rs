//! UTC times as text, without a time-zone library: `ls`'s `modified` (JavaScript's
//! `toISOString()` form, as the seeds returned it) and the exec approvals' timestamps.

use std::time::{SystemTime, UNIX_EPOCH};

/// `2025-07-23T10:04:05.123Z`.
pub fn iso_millis(t: SystemTime) -> String {
    let ms = match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_millis() as i128,
        Err(e) => -(e.duration().as_millis() as i128),
    };
    let (days, ms_of_day) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    let secs = ms_of_day / 1000;
    format!(
        "{}T{:02}:{:02}:{:02}.{:03}Z",
        date(days as i64),
        secs / 3600,
        secs / 60 % 60,
        secs % 60,
        ms_of_day % 1000
    )
}

/// `2025-07-23T10:04:05Z`.
pub fn rfc3339_seconds(t: SystemTime) -> String {
    let secs = t
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let rem = secs.rem_euclid(86_400);
    format!(
        "{}T{:02}:{:02}:{:02}Z",
        date(secs.div_euclid(86_400)),
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// `YYYY-MM-DD` of a day count since 1970-01-01.
fn date(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (eras of 400 years of 146 097
/// days, each era's years counted from March so the leap day is last).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn like_javascript() {
        assert_eq!(iso_millis(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(1_753_265_045_123);
        assert_eq!(iso_millis(t), "2025-07-23T10:04:05.123Z");
        assert_eq!(rfc3339_seconds(t), "2025-07-23T10:04:05Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(iso_millis(leap), "2000-02-29T00:00:00.000Z");
    }
}
