//! The local UTC offset of a commit's date, read as the C library reads it for git
//! (`tzset(3)`): `TZ` unset is `/etc/localtime`; `TZ=:NAME` and `TZ=NAME` name a TZif file
//! (absolute, or under `TZDIR`, default `/usr/share/zoneinfo`); a `TZ` that names no file is
//! a POSIX rule (`EST5EDT`, `<+0530>-5:30`); anything else, or an empty `TZ`, is UTC.
//!
//! gix's `Time::now_local_or_utc` asks jiff for the system zone, which builds a whole
//! time-zone database first (21 folders opened under /usr/share/zoneinfo, ~85 system calls,
//! even with `TZ=UTC`): 11.7% of the instructions of an apply in a 1k-file repository. This
//! reads one file, once per process.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use jiff::tz::TimeZone;

const DEFAULT_TZDIR: &str = "/usr/share/zoneinfo";

/// This process's local zone, from `TZ` and `TZDIR` as they are now (read once).
fn local_zone() -> &'static TimeZone {
    static ZONE: OnceLock<TimeZone> = OnceLock::new();
    ZONE.get_or_init(|| {
        zone_for(
            std::env::var_os("TZ").as_deref(),
            std::env::var_os("TZDIR").as_deref(),
        )
    })
}

/// The UTC offset, in seconds east, of the local zone at Unix time `seconds`.
pub(crate) fn local_offset(seconds: i64) -> i32 {
    offset_in(local_zone(), seconds)
}

fn offset_in(zone: &TimeZone, seconds: i64) -> i32 {
    jiff::Timestamp::from_second(seconds)
        .map(|t| zone.to_offset(t).seconds())
        .unwrap_or(0)
}

/// The zone `TZ` (`None`: unset) names, its files looked up under `tzdir` (`None`: the
/// default folder).
fn zone_for(tz: Option<&OsStr>, tzdir: Option<&OsStr>) -> TimeZone {
    let Some(tz) = tz else {
        return tzif_file(Path::new("/etc/localtime")).unwrap_or(TimeZone::UTC);
    };
    let dir = tzdir
        .filter(|d| !d.is_empty())
        .map_or_else(|| PathBuf::from(DEFAULT_TZDIR), PathBuf::from);
    let bytes = tz.as_encoded_bytes();
    if let Some(name) = bytes.strip_prefix(b":") {
        let name = OsStr::from_bytes(name);
        return tzif_file(&file_of(&dir, name)).unwrap_or(TimeZone::UTC);
    }
    if bytes.is_empty() {
        return TimeZone::UTC;
    }
    if let Some(zone) = tzif_file(&file_of(&dir, tz)) {
        return zone;
    }
    tz.to_str()
        .and_then(|s| TimeZone::posix(s).ok())
        .unwrap_or(TimeZone::UTC)
}

/// The file a zone name stands for: itself when absolute, else under `dir`. A name climbing
/// out of `dir` (`..`) stands for none, as glibc treats it for set-id programs.
fn file_of(dir: &Path, name: &OsStr) -> PathBuf {
    let path = Path::new(name);
    if path.is_absolute() {
        return path.to_path_buf();
    }
    if path
        .components()
        .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        return PathBuf::new();
    }
    dir.join(path)
}

/// The zone in TZif file `path`, if it is one.
fn tzif_file(path: &Path) -> Option<TimeZone> {
    if path.as_os_str().is_empty() {
        return None;
    }
    let data = std::fs::read(path).ok()?;
    let name = path.to_string_lossy();
    TimeZone::tzif(&name, &data).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the C library says: `date +%z` at `seconds` under `TZ` (`None`: unset).
    fn libc_offset(tz: Option<&str>, seconds: i64) -> i32 {
        let mut cmd = std::process::Command::new("date");
        cmd.env_remove("TZ").env_remove("TZDIR").env("LC_ALL", "C");
        if let Some(tz) = tz {
            cmd.env("TZ", tz);
        }
        let out = cmd
            .arg(format!("-d@{seconds}"))
            .arg("+%z")
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let text = text.trim();
        let sign = if text.starts_with('-') { -1 } else { 1 };
        let hours: i32 = text[1..3].parse().unwrap();
        let minutes: i32 = text[3..5].parse().unwrap();
        sign * (hours * 3600 + minutes * 60)
    }

    #[test]
    fn the_offset_is_the_c_librarys_for_every_way_of_naming_a_zone() {
        let winter = 1_767_268_800; // 2026-01-01 12:00 UTC
        let summer = 1_782_907_200; // 2026-07-01 12:00 UTC
        let mut zones = vec![
            None,
            Some("UTC"),
            Some(""),
            Some("EST5EDT"),
            Some("<+0530>-5:30"),
            Some("CET-1CEST,M3.5.0,M10.5.0/3"),
            Some("No/Such_Zone"),
            Some("../../etc/passwd"),
        ];
        // The named zones only where the machine has the database (the C library needs it too).
        if Path::new(DEFAULT_TZDIR).join("America/New_York").exists() {
            zones.extend([
                Some("America/New_York"),
                Some(":Europe/Paris"),
                Some("Asia/Kolkata"),
                Some("/usr/share/zoneinfo/Australia/Adelaide"),
            ]);
        }
        for tz in zones {
            let zone = zone_for(tz.map(OsStr::new), None);
            for at in [winter, summer] {
                assert_eq!(
                    offset_in(&zone, at),
                    libc_offset(tz, at),
                    "TZ={tz:?} at {at}"
                );
            }
        }
    }
}
