//! The replacer format's suffix rule: which files of the repository a bare name such as
//! `utils.py` may mean.

use super::Sandbox;

impl Sandbox {
    /// Gives the tracked file list the suffix rule searches ([`Sandbox::suffix_candidates`]).
    pub fn with_tracked(mut self, tracked: Vec<String>) -> Sandbox {
        self.tracked = Some(std::sync::Arc::new(tracked));
        self
    }

    /// Files whose root-relative path ends with `given` at a path-component boundary
    /// (`utils.py` matches `src/utils.py`, not `src/myutils.py`): the tracked files when the
    /// list was given, else every file of the worktree that `.gitignore` does not exclude.
    /// Sorted.
    pub fn suffix_candidates(&self, given: &str) -> Vec<String> {
        let want = given.trim_start_matches("./").trim_matches('/');
        if want.is_empty() {
            return Vec::new();
        }
        let ends = |p: &str| {
            p.len() > want.len()
                && p.ends_with(want)
                && p.as_bytes()[p.len() - want.len() - 1] == b'/'
        };
        let mut out: Vec<String> = match &self.tracked {
            Some(list) => list.iter().filter(|p| ends(p)).cloned().collect(),
            None => ignore::WalkBuilder::new(&self.root)
                .hidden(false)
                .filter_entry(|e| e.file_name() != ".git")
                .build()
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
                .filter_map(|e| self.rel(e.path()))
                .filter(|p| ends(p))
                .collect(),
        };
        out.sort();
        out
    }
}
