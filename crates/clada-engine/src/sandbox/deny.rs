//! `paths.deny`: the configuration's globs of paths no action may touch (a matching directory
//! denies everything under it).

use std::path::Path;

use super::Sandbox;

impl Sandbox {
    /// Refuses every path matching one of `globs` (`paths.deny`; `*` also crosses `/`), or
    /// lying under a directory that does. Invalid globs are skipped (the configuration
    /// loader reports them).
    pub fn deny_paths(mut self, globs: &[String]) -> Sandbox {
        if globs.is_empty() {
            return self;
        }
        let mut b = globset::GlobSetBuilder::new();
        for g in globs {
            if let Ok(glob) = globset::Glob::new(g) {
                b.add(glob);
            }
        }
        if let Ok(set) = b.build() {
            self.denied = Some((set, globs.to_vec()));
        }
        self
    }

    /// Whether `paths.deny` denies the absolute path `abs` (or a directory above it): what a
    /// recursive search or listing skips without a word.
    pub fn is_denied(&self, abs: &Path) -> bool {
        self.rel(abs)
            .is_some_and(|r| !r.is_empty() && self.denied_by(&r).is_some())
    }

    /// The `paths.deny` globs (empty when none): what read-only git commands exclude.
    pub fn denied_globs(&self) -> &[String] {
        self.denied.as_ref().map_or(&[], |(_, g)| g.as_slice())
    }

    /// The `paths.deny` glob `rel` (or a directory above it) matches.
    pub(super) fn denied_by(&self, rel: &str) -> Option<&str> {
        let (set, globs) = self.denied.as_ref()?;
        let mut prefix = String::new();
        for part in rel.split('/') {
            if !prefix.is_empty() {
                prefix.push('/');
            }
            prefix.push_str(part);
            if let Some(&i) = set.matches(&prefix).first() {
                return globs.get(i).map(String::as_str);
            }
        }
        None
    }
}
