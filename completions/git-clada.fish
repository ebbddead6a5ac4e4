# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_git_clada_global_optspecs
    string join \n C= format= dry-run h/help V/version
end

function __fish_git_clada_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_git_clada_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_git_clada_using_subcommand
    set -l cmd (__fish_git_clada_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c git-clada -n "__fish_git_clada_needs_command" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_needs_command" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_needs_command" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_needs_command" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_needs_command" -f -a "apply" -d 'Apply the action blocks of an LLM reply and commit the result as one AI commit'
complete -c git-clada -n "__fish_git_clada_needs_command" -f -a "commit" -d 'Commit the AI\'s changes that an apply left pending, as their AI commit'
complete -c git-clada -n "__fish_git_clada_needs_command" -f -a "check" -d 'Parse and validate replies without changing anything; exit 1 on any error. With --staged: refuse staged content that holds leftover block markers'
complete -c git-clada -n "__fish_git_clada_needs_command" -f -a "parse" -d 'Print the raw block parse result of a reply as JSON in the reference shape'
complete -c git-clada -n "__fish_git_clada_needs_command" -f -a "undo" -d 'Take back the last clada operation on this branch; repeated, the one before it'
complete -c git-clada -n "__fish_git_clada_needs_command" -f -a "redo" -d 'Re-apply what the last `git clada undo` took back, if nothing moved since'
complete -c git-clada -n "__fish_git_clada_needs_command" -f -a "squash" -d 'Collapse runs of AI commits into one commit each'
complete -c git-clada -n "__fish_git_clada_needs_command" -f -a "step-back" -d 'Move the worktree one commit back, parking uncommitted work first'
complete -c git-clada -n "__fish_git_clada_needs_command" -f -a "step-forward" -d 'Move the worktree one commit toward the tip step-back started from'
complete -c git-clada -n "__fish_git_clada_needs_command" -f -a "status" -d 'Say where you are: the branch, whether you are stepped back (and how far), and the last clada operation that undo would take back'
complete -c git-clada -n "__fish_git_clada_needs_command" -f -a "repair-index" -d 'Repair the index\'s cache-tree if an earlier git-clada wrote it wrong'
complete -c git-clada -n "__fish_git_clada_needs_command" -f -a "log" -d 'List git-clada commits on the current branch: short hash, age, subject, blocks ok/failed'
complete -c git-clada -n "__fish_git_clada_needs_command" -f -a "show" -d 'Show the reply an AI commit was made from and its result report'
complete -c git-clada -n "__fish_git_clada_needs_command" -f -a "blame" -d 'Show who wrote each line of a file: the last commit that changed it and whether an AI wrote it'
complete -c git-clada -n "__fish_git_clada_needs_command" -f -a "stats" -d 'Count the lines of a range by who wrote them: AI (per agent and model), human or unknown'
complete -c git-clada -n "__fish_git_clada_needs_command" -f -a "provenance" -d 'Line-level AI attribution: the Git AI Standard\'s authorship logs in refs/notes/ai'
complete -c git-clada -n "__fish_git_clada_needs_command" -f -a "watch" -d 'Watch FILE and apply each new complete block once, whenever the file changes'
complete -c git-clada -n "__fish_git_clada_needs_command" -f -a "mcp" -d 'Serve git-clada as an MCP server over stdio: the edit tool an agent calls'
complete -c git-clada -n "__fish_git_clada_needs_command" -f -a "prompt" -d 'Print the instructions to give a model (system prompt or custom instructions)'
complete -c git-clada -n "__fish_git_clada_needs_command" -f -a "config" -d 'Show the effective configuration: every key, its value and where it came from (default, the repository\'s `.clada.yml`, the user\'s `<config dir>/clada/config.yml`, or git config)'
complete -c git-clada -n "__fish_git_clada_needs_command" -f -a "context" -d 'Print what a model needs for its first turn: the instructions, a map of the repository, and the chosen files with line numbers'
complete -c git-clada -n "__fish_git_clada_needs_command" -f -a "hooks" -d 'Install or remove git-clada\'s git hooks (a pre-commit hook that refuses stray block markers; post-commit and post-rewrite hooks that keep AI line attribution through cherry-pick, amend and rebase; pre-push, post-merge and post-checkout hooks and a fetch refspec per remote that share the attribution logs with your remotes), or try the repository\'s hooks in the sandbox AI commits run them in. Existing hook content is preserved; core.hooksPath is respected'
complete -c git-clada -n "__fish_git_clada_needs_command" -f -a "agent-hook" -d 'Record an agent\'s own edits: checkpoints per tool call, one AI commit per turn'
complete -c git-clada -n "__fish_git_clada_needs_command" -f -a "install-man" -d 'Install the man pages, so `git clada --help` and `man git-clada` work'
complete -c git-clada -n "__fish_git_clada_needs_command" -f -a "demo" -d 'Create a scratch repository in a temporary directory, apply the bundled example reply, print the report and the commit, then undo it'
complete -c git-clada -n "__fish_git_clada_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c git-clada -n "__fish_git_clada_using_subcommand apply" -l dialect -d 'Which format to read: auto reads each block in the format its opening line shows (SHAM, NESL, nesl, CSL, CML, the replacer format, aider\'s SEARCH/REPLACE, apply_patch, unified diffs); a format name reads only that one' -r -f -a "auto\t'Per block, from its opening line: `#!SHAM`, `#!NESL`, `#!nesl`, CSL, CML, replacer, aider\'s SEARCH/REPLACE, apply_patch\'s `*** Begin Patch`, or a unified diff'
sham\t'Only `#!SHAM [@three-char-SHA-256: id]` … `#!END_SHAM_id`'
nesl-upper\t'Only `#!NESL [@three-char-SHA-256: id]` … `#!END_NESL_id`'
nesl\t'Only `#!nesl [@LABEL: id]` … `#!end_id`'
csl\t'Only CSL: `<---WRITE file="…"--->` … `<---END--->` (seed 002)'
cml\t'Only CML: `<tasks>`, `<write>`, `<edit>`, `<move>`, `<remove>`, `<run>` (seed 004)'
replacer\t'Only the replacer format: `<<<FILE>>>` … `<<<END>>>` (seed 001)'
tool-call\t'Only a tool call: the whole input is JSON, a list of actions ([{"action": …, parameters…}]) or an editor-style edit ({path, old_string, new_string, replace_all}); never chosen by auto'
aider\t'Only aider SEARCH/REPLACE blocks: the file name, then `<<<<<<< SEARCH` … `=======` … `>>>>>>> REPLACE`'
apply-patch\t'Only Codex apply_patch envelopes: `*** Begin Patch` … `*** End Patch`, bare or in an `apply_patch <<\'EOF\'` heredoc'
diff\t'Only unified diffs: `diff --git a/… b/…` or `--- a/…` / `+++ b/…`, then `@@ -a,b +c,d @@` hunks'"
complete -c git-clada -n "__fish_git_clada_using_subcommand apply" -l wip -d 'What happens to uncommitted work: `keep` leaves it uncommitted (staged stays staged) and the AI commit holds only the AI\'s changes; `commit` first records it in a `clada: snapshot before AI edit` commit on the branch. Default: config `wip`, else keep' -r -f -a "keep\t'Keep it uncommitted'
commit\t'Record it in a snapshot commit before the AI commit'"
complete -c git-clada -n "__fish_git_clada_using_subcommand apply" -l git-author -d 'Author of the AI commit, as `NAME <EMAIL>` (like `git commit --author`). The committer, and any snapshot of your own work, keep your identity' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand apply" -s m -l message -d 'Use MESSAGE as the commit subject instead of the generated `AI: …` summary' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand apply" -l exec -d 'Policy for `exec` blocks: ask, allow, or deny. Default: config `exec`, else ask (without a terminal only approved and read-only commands run)' -r -f -a "ask\t'Show the code and ask y/n/always (approved and read-only commands run without asking; without a terminal everything else is refused)'
allow\t'Run every exec block'
deny\t'Refuse every exec block'"
complete -c git-clada -n "__fish_git_clada_using_subcommand apply" -l timeout -d 'Time limit per exec block without its own `timeout` (`30`, `500ms`, `2m`). Default: config `timeout`, else 30s' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand apply" -l max-output -d 'Output cap per stream of an exec block (`1048576`, `512k`, `10MiB`). Default: config `max_output`, else 10MiB' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand apply" -l total-timeout -d 'Time limit for all exec blocks of the reply together. Default: config `total_timeout`, else none' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand apply" -l agent -d 'The agent that wrote the reply, as the Git AI Standard names it (claude, cursor, gemini, codex, …), for the authorship log in refs/notes/ai. Default: config provenance.agent, the MCP client\'s name, else git-clada' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand apply" -l model -d 'The model that wrote the reply. Default: config provenance.model, else unknown' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand apply" -l conversation -d 'The agent\'s conversation id, behind the log\'s session id. Default: the MCP session (Clada-Session), else the reply\'s blob id' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand apply" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand apply" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand apply" -l no-git -d 'Run the actions without git: paths are relative to the current directory, nothing is committed'
complete -c git-clada -n "__fish_git_clada_using_subcommand apply" -l allow-outside -d 'Permit absolute paths outside the worktree (such changes are never committed)'
complete -c git-clada -n "__fish_git_clada_using_subcommand apply" -l atomic -d 'All-or-nothing: if any block fails, restore every file and commit nothing'
complete -c git-clada -n "__fish_git_clada_using_subcommand apply" -l no-commit -d 'Apply and stage the changes but do not commit'
complete -c git-clada -n "__fish_git_clada_using_subcommand apply" -l no-verify -d 'Do not run the pre-commit, commit-msg and post-commit hooks'
complete -c git-clada -n "__fish_git_clada_using_subcommand apply" -l no-snapshot -d 'Refuse to apply when there is uncommitted work'
complete -c git-clada -n "__fish_git_clada_using_subcommand apply" -l force -d 'Apply the reply even when it is the one applied last and its files are still as it left them (a reply pasted twice); without it the second paste is reported "already applied" and nothing runs, its exec blocks included'
complete -c git-clada -n "__fish_git_clada_using_subcommand apply" -l paste -d 'Read the reply from the clipboard instead of a file or stdin'
complete -c git-clada -n "__fish_git_clada_using_subcommand apply" -l copy -d 'Also put the llm report on the clipboard (OSC 52 to the terminal when no display server is reachable); a failed copy is reported, never fails the apply. Also on with config `clipboard.copy: true`'
complete -c git-clada -n "__fish_git_clada_using_subcommand apply" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand apply" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand apply" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand commit" -s m -l message -d 'Replaces the generated subject of the AI commit' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand commit" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand commit" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand commit" -l no-verify -d 'Do not run the pre-commit, commit-msg and post-commit hooks'
complete -c git-clada -n "__fish_git_clada_using_subcommand commit" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand commit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand commit" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand check" -l dialect -d 'Which format to read: auto reads each block in the format its opening line shows (SHAM, NESL, nesl, CSL, CML, the replacer format, aider\'s SEARCH/REPLACE, apply_patch, unified diffs); a format name reads only that one' -r -f -a "auto\t'Per block, from its opening line: `#!SHAM`, `#!NESL`, `#!nesl`, CSL, CML, replacer, aider\'s SEARCH/REPLACE, apply_patch\'s `*** Begin Patch`, or a unified diff'
sham\t'Only `#!SHAM [@three-char-SHA-256: id]` … `#!END_SHAM_id`'
nesl-upper\t'Only `#!NESL [@three-char-SHA-256: id]` … `#!END_NESL_id`'
nesl\t'Only `#!nesl [@LABEL: id]` … `#!end_id`'
csl\t'Only CSL: `<---WRITE file="…"--->` … `<---END--->` (seed 002)'
cml\t'Only CML: `<tasks>`, `<write>`, `<edit>`, `<move>`, `<remove>`, `<run>` (seed 004)'
replacer\t'Only the replacer format: `<<<FILE>>>` … `<<<END>>>` (seed 001)'
tool-call\t'Only a tool call: the whole input is JSON, a list of actions ([{"action": …, parameters…}]) or an editor-style edit ({path, old_string, new_string, replace_all}); never chosen by auto'
aider\t'Only aider SEARCH/REPLACE blocks: the file name, then `<<<<<<< SEARCH` … `=======` … `>>>>>>> REPLACE`'
apply-patch\t'Only Codex apply_patch envelopes: `*** Begin Patch` … `*** End Patch`, bare or in an `apply_patch <<\'EOF\'` heredoc'
diff\t'Only unified diffs: `diff --git a/… b/…` or `--- a/…` / `+++ b/…`, then `@@ -a,b +c,d @@` hunks'"
complete -c git-clada -n "__fish_git_clada_using_subcommand check" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand check" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand check" -l staged -d 'Check the staged content for leftover block markers (the pre-commit hook\'s check)'
complete -c git-clada -n "__fish_git_clada_using_subcommand check" -l no-git -d 'Resolve paths against the current directory instead of the worktree root'
complete -c git-clada -n "__fish_git_clada_using_subcommand check" -l allow-outside -d 'Accept absolute paths outside the root (as `apply --allow-outside` would)'
complete -c git-clada -n "__fish_git_clada_using_subcommand check" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand check" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand parse" -l dialect -d 'Which format to read: auto reads each block in the format its opening line shows (SHAM, NESL, nesl, CSL, CML, the replacer format, aider\'s SEARCH/REPLACE, apply_patch, unified diffs); a format name reads only that one' -r -f -a "auto\t'Per block, from its opening line: `#!SHAM`, `#!NESL`, `#!nesl`, CSL, CML, replacer, aider\'s SEARCH/REPLACE, apply_patch\'s `*** Begin Patch`, or a unified diff'
sham\t'Only `#!SHAM [@three-char-SHA-256: id]` … `#!END_SHAM_id`'
nesl-upper\t'Only `#!NESL [@three-char-SHA-256: id]` … `#!END_NESL_id`'
nesl\t'Only `#!nesl [@LABEL: id]` … `#!end_id`'
csl\t'Only CSL: `<---WRITE file="…"--->` … `<---END--->` (seed 002)'
cml\t'Only CML: `<tasks>`, `<write>`, `<edit>`, `<move>`, `<remove>`, `<run>` (seed 004)'
replacer\t'Only the replacer format: `<<<FILE>>>` … `<<<END>>>` (seed 001)'
tool-call\t'Only a tool call: the whole input is JSON, a list of actions ([{"action": …, parameters…}]) or an editor-style edit ({path, old_string, new_string, replace_all}); never chosen by auto'
aider\t'Only aider SEARCH/REPLACE blocks: the file name, then `<<<<<<< SEARCH` … `=======` … `>>>>>>> REPLACE`'
apply-patch\t'Only Codex apply_patch envelopes: `*** Begin Patch` … `*** End Patch`, bare or in an `apply_patch <<\'EOF\'` heredoc'
diff\t'Only unified diffs: `diff --git a/… b/…` or `--- a/…` / `+++ b/…`, then `@@ -a,b +c,d @@` hunks'"
complete -c git-clada -n "__fish_git_clada_using_subcommand parse" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand parse" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand parse" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand parse" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand parse" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand undo" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand undo" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand undo" -l list -d 'List what undo takes back (newest first) and what redo puts back, and change nothing'
complete -c git-clada -n "__fish_git_clada_using_subcommand undo" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand undo" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand undo" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand redo" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand redo" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand redo" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand redo" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand redo" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand squash" -l mode -d 'Which commits to select' -r -f -a "auto_ai\t'The run of git-clada commits at the tip'
ai_messages\t'AI commits whose subject starts with `AI:`'
hours\t'AI commits made in the last --hours N hours'
days\t'AI commits made in the last --days N days'
msg_contains\t'AI commits whose message contains --msg-target S'
session\t'AI commits of one session: an agent\'s turns, or one `git clada mcp` session\'s calls (--session ID, else the newest)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand squash" -l hours -d 'With --mode hours: AI commits made in the last N hours' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand squash" -l days -d 'With --mode days: AI commits made in the last N days' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand squash" -l msg-target -d 'With --mode msg_contains: AI commits whose message contains S' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand squash" -l session -d 'With --mode session: the session whose commits to squash — an agent\'s session (its turns) or a `git clada mcp` session (the `Clada-Session` trailer, shown by `git clada log`). Default: the session of the newest such commit' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand squash" -l message -d 'Subject of the squashed commit (default: the subjects combined)' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand squash" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand squash" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand squash" -l contiguous-only -d 'Squash each contiguous run separately, keeping human commits in between (default)'
complete -c git-clada -n "__fish_git_clada_using_subcommand squash" -l no-contiguous-only -d 'Gather the selected commits across human commits, if that needs no conflict resolution'
complete -c git-clada -n "__fish_git_clada_using_subcommand squash" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand squash" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand squash" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand step-back" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand step-back" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand step-back" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand step-back" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand step-back" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand step-forward" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand step-forward" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand step-forward" -l all -d 'Return to the tip at once'
complete -c git-clada -n "__fish_git_clada_using_subcommand step-forward" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand step-forward" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand step-forward" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand status" -l ack -d 'Mark PATH reviewed: a file a hook calls that a reply changed, which status names until you commit it or mark it so' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand status" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand status" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand status" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand status" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand repair-index" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand repair-index" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand repair-index" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand repair-index" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand repair-index" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand log" -s n -l max-count -d 'Show at most N commits' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand log" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand log" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand log" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand log" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand log" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand show" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand show" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand show" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand show" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand blame" -s L -d 'Only lines A to B (1-based, inclusive), as `git blame -L A,B`' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand blame" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand blame" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand blame" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand blame" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand blame" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand stats" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand stats" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand stats" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand stats" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand stats" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and not __fish_seen_subcommand_from backfill rewritten post-commit pre-push fetched help" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and not __fish_seen_subcommand_from backfill rewritten post-commit pre-push fetched help" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and not __fish_seen_subcommand_from backfill rewritten post-commit pre-push fetched help" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and not __fish_seen_subcommand_from backfill rewritten post-commit pre-push fetched help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and not __fish_seen_subcommand_from backfill rewritten post-commit pre-push fetched help" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and not __fish_seen_subcommand_from backfill rewritten post-commit pre-push fetched help" -f -a "backfill" -d 'Write the logs of AI commits made before git-clada wrote them'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and not __fish_seen_subcommand_from backfill rewritten post-commit pre-push fetched help" -f -a "rewritten" -d 'For git\'s post-rewrite hook (installed by `git clada hooks install`): carry the logs of rewritten commits to their new ids, reading git\'s `<old> <new>` lines on standard input. Never fails the rewrite: problems are printed and the exit status is 0'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and not __fish_seen_subcommand_from backfill rewritten post-commit pre-push fetched help" -f -a "post-commit" -d 'For git\'s post-commit hook: after a cherry-pick, a merge --squash or a reset --soft, carry the logs of the commits the new one replaces, where git\'s evidence names them; and write the log of a commit holding lines an agent\'s open checkpoints attribute. Never fails: problems are printed and the exit status is 0'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and not __fish_seen_subcommand_from backfill rewritten post-commit pre-push fetched help" -f -a "pre-push" -d 'For git\'s pre-push hook: push refs/notes/ai to REMOTE where its logs are shared, after merging what it has (fetching, merging and pushing again when another clone pushed first). Never asks for credentials and never fails the push: a problem is one line'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and not __fish_seen_subcommand_from backfill rewritten post-commit pre-push fetched help" -f -a "fetched" -d 'For git\'s post-merge and post-checkout hooks: merge the logs fetched from the remotes (refs/notes/remotes/<remote>/ai) into refs/notes/ai. Never fails'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and not __fish_seen_subcommand_from backfill rewritten post-commit pre-push fetched help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from backfill" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from backfill" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from backfill" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from backfill" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from backfill" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from rewritten" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from rewritten" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from rewritten" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from rewritten" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from rewritten" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from post-commit" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from post-commit" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from post-commit" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from post-commit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from post-commit" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from pre-push" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from pre-push" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from pre-push" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from pre-push" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from pre-push" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from fetched" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from fetched" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from fetched" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from fetched" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from fetched" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from help" -f -a "backfill" -d 'Write the logs of AI commits made before git-clada wrote them'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from help" -f -a "rewritten" -d 'For git\'s post-rewrite hook (installed by `git clada hooks install`): carry the logs of rewritten commits to their new ids, reading git\'s `<old> <new>` lines on standard input. Never fails the rewrite: problems are printed and the exit status is 0'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from help" -f -a "post-commit" -d 'For git\'s post-commit hook: after a cherry-pick, a merge --squash or a reset --soft, carry the logs of the commits the new one replaces, where git\'s evidence names them; and write the log of a commit holding lines an agent\'s open checkpoints attribute. Never fails: problems are printed and the exit status is 0'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from help" -f -a "pre-push" -d 'For git\'s pre-push hook: push refs/notes/ai to REMOTE where its logs are shared, after merging what it has (fetching, merging and pushing again when another clone pushed first). Never asks for credentials and never fails the push: a problem is one line'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from help" -f -a "fetched" -d 'For git\'s post-merge and post-checkout hooks: merge the logs fetched from the remotes (refs/notes/remotes/<remote>/ai) into refs/notes/ai. Never fails'
complete -c git-clada -n "__fish_git_clada_using_subcommand provenance; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c git-clada -n "__fish_git_clada_using_subcommand watch" -l agent -d 'The agent that wrote the reply, as the Git AI Standard names it (claude, cursor, gemini, codex, …), for the authorship log in refs/notes/ai. Default: config provenance.agent, the MCP client\'s name, else git-clada' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand watch" -l model -d 'The model that wrote the reply. Default: config provenance.model, else unknown' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand watch" -l conversation -d 'The agent\'s conversation id, behind the log\'s session id. Default: the MCP session (Clada-Session), else the reply\'s blob id' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand watch" -l output -d 'Also write each batch\'s llm report to this file' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand watch" -l dialect -d 'Which format to read: auto reads each block in the format its opening line shows (SHAM, NESL, nesl, CSL, CML, the replacer format, aider\'s SEARCH/REPLACE, apply_patch, unified diffs); a format name reads only that one' -r -f -a "auto\t'Per block, from its opening line: `#!SHAM`, `#!NESL`, `#!nesl`, CSL, CML, replacer, aider\'s SEARCH/REPLACE, apply_patch\'s `*** Begin Patch`, or a unified diff'
sham\t'Only `#!SHAM [@three-char-SHA-256: id]` … `#!END_SHAM_id`'
nesl-upper\t'Only `#!NESL [@three-char-SHA-256: id]` … `#!END_NESL_id`'
nesl\t'Only `#!nesl [@LABEL: id]` … `#!end_id`'
csl\t'Only CSL: `<---WRITE file="…"--->` … `<---END--->` (seed 002)'
cml\t'Only CML: `<tasks>`, `<write>`, `<edit>`, `<move>`, `<remove>`, `<run>` (seed 004)'
replacer\t'Only the replacer format: `<<<FILE>>>` … `<<<END>>>` (seed 001)'
tool-call\t'Only a tool call: the whole input is JSON, a list of actions ([{"action": …, parameters…}]) or an editor-style edit ({path, old_string, new_string, replace_all}); never chosen by auto'
aider\t'Only aider SEARCH/REPLACE blocks: the file name, then `<<<<<<< SEARCH` … `=======` … `>>>>>>> REPLACE`'
apply-patch\t'Only Codex apply_patch envelopes: `*** Begin Patch` … `*** End Patch`, bare or in an `apply_patch <<\'EOF\'` heredoc'
diff\t'Only unified diffs: `diff --git a/… b/…` or `--- a/…` / `+++ b/…`, then `@@ -a,b +c,d @@` hunks'"
complete -c git-clada -n "__fish_git_clada_using_subcommand watch" -l exec -d 'Policy for `exec` blocks: ask on a terminal, allow, or deny. Default: ask on a terminal, deny otherwise' -r -f -a "ask\t'Show the code and ask y/n/always (approved and read-only commands run without asking; without a terminal everything else is refused)'
allow\t'Run every exec block'
deny\t'Refuse every exec block'"
complete -c git-clada -n "__fish_git_clada_using_subcommand watch" -l debounce -d 'Milliseconds the file must stay unchanged before it is read' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand watch" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand watch" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand watch" -l copy -d 'Put each batch\'s llm report on the clipboard (OSC 52 to the terminal when no display server is reachable). Also on with config `clipboard.copy: true`'
complete -c git-clada -n "__fish_git_clada_using_subcommand watch" -l prepend -d 'Write each batch\'s summary at the top of the watched file, as the original listener did'
complete -c git-clada -n "__fish_git_clada_using_subcommand watch" -l no-verify -d 'Do not run the pre-commit, commit-msg and post-commit hooks'
complete -c git-clada -n "__fish_git_clada_using_subcommand watch" -l poll -d 'Check the file by polling only, without OS notifications (for network file systems)'
complete -c git-clada -n "__fish_git_clada_using_subcommand watch" -l once -d 'Apply what is new once and exit, without watching'
complete -c git-clada -n "__fish_git_clada_using_subcommand watch" -l skip-existing -d 'Treat the blocks already in the file as applied, without applying them'
complete -c git-clada -n "__fish_git_clada_using_subcommand watch" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand watch" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand watch" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand mcp" -l exec -d 'Policy for `exec` blocks: ask, allow, or deny. Default: config `exec`, else ask (without a terminal only approved and read-only commands run)' -r -f -a "ask\t'Show the code and ask y/n/always (approved and read-only commands run without asking; without a terminal everything else is refused)'
allow\t'Run every exec block'
deny\t'Refuse every exec block'"
complete -c git-clada -n "__fish_git_clada_using_subcommand mcp" -l timeout -d 'Time limit per exec block without its own `timeout` (`30`, `500ms`, `2m`). Default: config `timeout`, else 30s' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand mcp" -l max-output -d 'Output cap per stream of an exec block (`1048576`, `512k`, `10MiB`). Default: config `max_output`, else 10MiB' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand mcp" -l total-timeout -d 'Time limit for all exec blocks of the reply together. Default: config `total_timeout`, else none' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand mcp" -l agent -d 'The agent that wrote the reply, as the Git AI Standard names it (claude, cursor, gemini, codex, …), for the authorship log in refs/notes/ai. Default: config provenance.agent, the MCP client\'s name, else git-clada' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand mcp" -l model -d 'The model that wrote the reply. Default: config provenance.model, else unknown' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand mcp" -l conversation -d 'The agent\'s conversation id, behind the log\'s session id. Default: the MCP session (Clada-Session), else the reply\'s blob id' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand mcp" -l session -d 'The session id in the `Clada-Session` trailer of this server\'s commits (default: a new `mcp-…` id per server; `git clada log` shows it, `git clada squash --mode session` collapses a session\'s commits)' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand mcp" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand mcp" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand mcp" -l no-git -d 'Serve a plain folder (the current one, or -C DIR) without git: nothing is committed, and undo, redo, status, log and show are not available'
complete -c git-clada -n "__fish_git_clada_using_subcommand mcp" -l no-verify -d 'Do not run the pre-commit, commit-msg and post-commit hooks on the AI commits'
complete -c git-clada -n "__fish_git_clada_using_subcommand mcp" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand mcp" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand mcp" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand prompt" -l dialect -d 'The block spelling to teach' -r -f -a "nesl\t'`#!nesl [@three-char-SHA-256: ID]` … `#!end_ID`'
nesl-upper\t'`#!NESL [@three-char-SHA-256: ID]` … `#!END_NESL_ID`'
sham\t'`#!SHAM [@three-char-SHA-256: ID]` … `#!END_SHAM_ID`'
aider\t'aider SEARCH/REPLACE blocks (file edits only)'
apply-patch\t'Codex apply_patch envelopes (file edits only)'
diff\t'Unified diffs, as `git diff` writes them (file edits only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand prompt" -l actions -d 'Only these actions (comma-separated), e.g. without exec' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand prompt" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand prompt" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand prompt" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand prompt" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand prompt" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand config" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand config" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand config" -l trust -d 'Trust the repository\'s `.clada.yml` as it is now, so the commands and looser settings it sets apply; also imports the commands of an old `.clada/allowed-commands.json` into your approvals (read both first)'
complete -c git-clada -n "__fish_git_clada_using_subcommand config" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand config" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand config" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand context" -l map-limit -d 'At most this many files in the map' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand context" -l dialect -d 'The block spelling the instructions teach' -r -f -a "nesl\t'`#!nesl [@three-char-SHA-256: ID]` … `#!end_ID`'
nesl-upper\t'`#!NESL [@three-char-SHA-256: ID]` … `#!END_NESL_ID`'
sham\t'`#!SHAM [@three-char-SHA-256: ID]` … `#!END_SHAM_ID`'
aider\t'aider SEARCH/REPLACE blocks (file edits only)'
apply-patch\t'Codex apply_patch envelopes (file edits only)'
diff\t'Unified diffs, as `git diff` writes them (file edits only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand context" -l actions -d 'Only these actions in the instructions (comma-separated)' -r
complete -c git-clada -n "__fish_git_clada_using_subcommand context" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand context" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand context" -l copy -d 'Copy the context to the clipboard (what happened is said on stderr)'
complete -c git-clada -n "__fish_git_clada_using_subcommand context" -l no-instructions -d 'Leave the instructions out (the model already has them)'
complete -c git-clada -n "__fish_git_clada_using_subcommand context" -l no-map -d 'Leave the repository map out'
complete -c git-clada -n "__fish_git_clada_using_subcommand context" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand context" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand context" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall check prepare help" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall check prepare help" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall check prepare help" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall check prepare help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall check prepare help" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall check prepare help" -f -a "install" -d 'Install the hooks, and share the AI attribution logs (refs/notes/ai) with every remote: a plain `git push` also pushes them (never forced, asking for no credentials), a plain `git fetch`/`git pull` brings the remote\'s into refs/notes/remotes/<remote>/ai, merged at the next merge, checkout or rewrite, or when git-clada reads them. A remote added later is shared once you run this again'
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall check prepare help" -f -a "uninstall" -d 'Remove the hooks, keeping any other content of the hook files, and the fetch refspecs that share the logs'
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall check prepare help" -f -a "check" -d 'Run the repository\'s pre-commit and commit-msg hooks and hooks.after in the sandbox an AI commit runs them in, on the current index (nothing is committed; a fixer may rewrite files, as with git commit), and print what failed and the configuration line that would allow it'
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall check prepare help" -f -a "prepare" -d 'Fill git-clada\'s own hook caches once, with network, in the sandbox (pre-commit install-hooks for a .pre-commit-config.yaml)'
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and not __fish_seen_subcommand_from install uninstall check prepare help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and __fish_seen_subcommand_from install" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and __fish_seen_subcommand_from install" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and __fish_seen_subcommand_from install" -l no-share -d 'Leave sharing out (and stop it where an earlier install set it up)'
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and __fish_seen_subcommand_from install" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and __fish_seen_subcommand_from install" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and __fish_seen_subcommand_from install" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and __fish_seen_subcommand_from uninstall" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and __fish_seen_subcommand_from uninstall" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and __fish_seen_subcommand_from uninstall" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and __fish_seen_subcommand_from uninstall" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and __fish_seen_subcommand_from uninstall" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and __fish_seen_subcommand_from check" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and __fish_seen_subcommand_from check" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and __fish_seen_subcommand_from check" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and __fish_seen_subcommand_from check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and __fish_seen_subcommand_from check" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and __fish_seen_subcommand_from prepare" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and __fish_seen_subcommand_from prepare" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and __fish_seen_subcommand_from prepare" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and __fish_seen_subcommand_from prepare" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and __fish_seen_subcommand_from prepare" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and __fish_seen_subcommand_from help" -f -a "install" -d 'Install the hooks, and share the AI attribution logs (refs/notes/ai) with every remote: a plain `git push` also pushes them (never forced, asking for no credentials), a plain `git fetch`/`git pull` brings the remote\'s into refs/notes/remotes/<remote>/ai, merged at the next merge, checkout or rewrite, or when git-clada reads them. A remote added later is shared once you run this again'
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and __fish_seen_subcommand_from help" -f -a "uninstall" -d 'Remove the hooks, keeping any other content of the hook files, and the fetch refspecs that share the logs'
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and __fish_seen_subcommand_from help" -f -a "check" -d 'Run the repository\'s pre-commit and commit-msg hooks and hooks.after in the sandbox an AI commit runs them in, on the current index (nothing is committed; a fixer may rewrite files, as with git commit), and print what failed and the configuration line that would allow it'
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and __fish_seen_subcommand_from help" -f -a "prepare" -d 'Fill git-clada\'s own hook caches once, with network, in the sandbox (pre-commit install-hooks for a .pre-commit-config.yaml)'
complete -c git-clada -n "__fish_git_clada_using_subcommand hooks; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and not __fish_seen_subcommand_from install uninstall status help" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and not __fish_seen_subcommand_from install uninstall status help" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and not __fish_seen_subcommand_from install uninstall status help" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and not __fish_seen_subcommand_from install uninstall status help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and not __fish_seen_subcommand_from install uninstall status help" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and not __fish_seen_subcommand_from install uninstall status help" -a "install" -d 'Add git-clada\'s hooks to the agent\'s settings (again: no change; your other hooks stay)'
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and not __fish_seen_subcommand_from install uninstall status help" -a "uninstall" -d 'Remove git-clada\'s hooks from the agent\'s settings, and only those'
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and not __fish_seen_subcommand_from install uninstall status help" -a "status" -d 'For each agent whose settings hold git-clada\'s hooks: whether every event is registered, whether the agent trusts the hooks, when git-clada last heard from it in this repository, and whether git\'s attribution hooks are installed'
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and not __fish_seen_subcommand_from install uninstall status help" -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and __fish_seen_subcommand_from install" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and __fish_seen_subcommand_from install" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and __fish_seen_subcommand_from install" -l user -d 'Your own settings for every project (the default): ~/.claude/settings.json, ~/.cursor/hooks.json, ~/.gemini/settings.json, ~/.codex/hooks.json'
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and __fish_seen_subcommand_from install" -l project-local -d 'Your own settings for this repository only (.claude/settings.local.json; Claude Code only)'
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and __fish_seen_subcommand_from install" -l shared -d 'The repository\'s committed settings (.claude/settings.json, .cursor/hooks.json, .gemini/settings.json, .codex/hooks.json), guarded so teammates without git-clada are not broken'
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and __fish_seen_subcommand_from install" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and __fish_seen_subcommand_from install" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and __fish_seen_subcommand_from install" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and __fish_seen_subcommand_from uninstall" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and __fish_seen_subcommand_from uninstall" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and __fish_seen_subcommand_from uninstall" -l user -d 'Your own settings for every project (the default): ~/.claude/settings.json, ~/.cursor/hooks.json, ~/.gemini/settings.json, ~/.codex/hooks.json'
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and __fish_seen_subcommand_from uninstall" -l project-local -d 'Your own settings for this repository only (.claude/settings.local.json; Claude Code only)'
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and __fish_seen_subcommand_from uninstall" -l shared -d 'The repository\'s committed settings (.claude/settings.json, .cursor/hooks.json, .gemini/settings.json, .codex/hooks.json), guarded so teammates without git-clada are not broken'
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and __fish_seen_subcommand_from uninstall" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and __fish_seen_subcommand_from uninstall" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and __fish_seen_subcommand_from uninstall" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and __fish_seen_subcommand_from status" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and __fish_seen_subcommand_from status" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and __fish_seen_subcommand_from status" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and __fish_seen_subcommand_from status" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and __fish_seen_subcommand_from help" -f -a "install" -d 'Add git-clada\'s hooks to the agent\'s settings (again: no change; your other hooks stay)'
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and __fish_seen_subcommand_from help" -f -a "uninstall" -d 'Remove git-clada\'s hooks from the agent\'s settings, and only those'
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and __fish_seen_subcommand_from help" -f -a "status" -d 'For each agent whose settings hold git-clada\'s hooks: whether every event is registered, whether the agent trusts the hooks, when git-clada last heard from it in this repository, and whether git\'s attribution hooks are installed'
complete -c git-clada -n "__fish_git_clada_using_subcommand agent-hook; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c git-clada -n "__fish_git_clada_using_subcommand install-man" -l dir -d 'Directory that receives git-clada.1 and git-clada-<command>.1 (a `man1` directory)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand install-man" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand install-man" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand install-man" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand install-man" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand install-man" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand demo" -s C -d 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)' -r -F
complete -c git-clada -n "__fish_git_clada_using_subcommand demo" -l format -d 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)' -r -f -a "human\t'One line per block with ✅/❌/⏸, hints and outputs; meant for people'
json\t'Stable machine-readable JSON (documented in docs/json-format.md)'
llm\t'A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`)'
markdown\t'Markdown (`prompt`, and `stats`\' summary for a pull request)'
text\t'Plain text (`prompt` only)'
html\t'One self-contained HTML page (`stats` only)'"
complete -c git-clada -n "__fish_git_clada_using_subcommand demo" -l keep -d 'Keep the scratch repository (its path is printed) instead of deleting it'
complete -c git-clada -n "__fish_git_clada_using_subcommand demo" -l dry-run -d 'Show what would happen without changing any file, ref or the index'
complete -c git-clada -n "__fish_git_clada_using_subcommand demo" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-clada -n "__fish_git_clada_using_subcommand demo" -s V -l version -d 'Print version'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and not __fish_seen_subcommand_from apply commit check parse undo redo squash step-back step-forward status repair-index log show blame stats provenance watch mcp prompt config context hooks agent-hook install-man demo help" -f -a "apply" -d 'Apply the action blocks of an LLM reply and commit the result as one AI commit'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and not __fish_seen_subcommand_from apply commit check parse undo redo squash step-back step-forward status repair-index log show blame stats provenance watch mcp prompt config context hooks agent-hook install-man demo help" -f -a "commit" -d 'Commit the AI\'s changes that an apply left pending, as their AI commit'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and not __fish_seen_subcommand_from apply commit check parse undo redo squash step-back step-forward status repair-index log show blame stats provenance watch mcp prompt config context hooks agent-hook install-man demo help" -f -a "check" -d 'Parse and validate replies without changing anything; exit 1 on any error. With --staged: refuse staged content that holds leftover block markers'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and not __fish_seen_subcommand_from apply commit check parse undo redo squash step-back step-forward status repair-index log show blame stats provenance watch mcp prompt config context hooks agent-hook install-man demo help" -f -a "parse" -d 'Print the raw block parse result of a reply as JSON in the reference shape'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and not __fish_seen_subcommand_from apply commit check parse undo redo squash step-back step-forward status repair-index log show blame stats provenance watch mcp prompt config context hooks agent-hook install-man demo help" -f -a "undo" -d 'Take back the last clada operation on this branch; repeated, the one before it'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and not __fish_seen_subcommand_from apply commit check parse undo redo squash step-back step-forward status repair-index log show blame stats provenance watch mcp prompt config context hooks agent-hook install-man demo help" -f -a "redo" -d 'Re-apply what the last `git clada undo` took back, if nothing moved since'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and not __fish_seen_subcommand_from apply commit check parse undo redo squash step-back step-forward status repair-index log show blame stats provenance watch mcp prompt config context hooks agent-hook install-man demo help" -f -a "squash" -d 'Collapse runs of AI commits into one commit each'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and not __fish_seen_subcommand_from apply commit check parse undo redo squash step-back step-forward status repair-index log show blame stats provenance watch mcp prompt config context hooks agent-hook install-man demo help" -f -a "step-back" -d 'Move the worktree one commit back, parking uncommitted work first'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and not __fish_seen_subcommand_from apply commit check parse undo redo squash step-back step-forward status repair-index log show blame stats provenance watch mcp prompt config context hooks agent-hook install-man demo help" -f -a "step-forward" -d 'Move the worktree one commit toward the tip step-back started from'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and not __fish_seen_subcommand_from apply commit check parse undo redo squash step-back step-forward status repair-index log show blame stats provenance watch mcp prompt config context hooks agent-hook install-man demo help" -f -a "status" -d 'Say where you are: the branch, whether you are stepped back (and how far), and the last clada operation that undo would take back'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and not __fish_seen_subcommand_from apply commit check parse undo redo squash step-back step-forward status repair-index log show blame stats provenance watch mcp prompt config context hooks agent-hook install-man demo help" -f -a "repair-index" -d 'Repair the index\'s cache-tree if an earlier git-clada wrote it wrong'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and not __fish_seen_subcommand_from apply commit check parse undo redo squash step-back step-forward status repair-index log show blame stats provenance watch mcp prompt config context hooks agent-hook install-man demo help" -f -a "log" -d 'List git-clada commits on the current branch: short hash, age, subject, blocks ok/failed'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and not __fish_seen_subcommand_from apply commit check parse undo redo squash step-back step-forward status repair-index log show blame stats provenance watch mcp prompt config context hooks agent-hook install-man demo help" -f -a "show" -d 'Show the reply an AI commit was made from and its result report'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and not __fish_seen_subcommand_from apply commit check parse undo redo squash step-back step-forward status repair-index log show blame stats provenance watch mcp prompt config context hooks agent-hook install-man demo help" -f -a "blame" -d 'Show who wrote each line of a file: the last commit that changed it and whether an AI wrote it'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and not __fish_seen_subcommand_from apply commit check parse undo redo squash step-back step-forward status repair-index log show blame stats provenance watch mcp prompt config context hooks agent-hook install-man demo help" -f -a "stats" -d 'Count the lines of a range by who wrote them: AI (per agent and model), human or unknown'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and not __fish_seen_subcommand_from apply commit check parse undo redo squash step-back step-forward status repair-index log show blame stats provenance watch mcp prompt config context hooks agent-hook install-man demo help" -f -a "provenance" -d 'Line-level AI attribution: the Git AI Standard\'s authorship logs in refs/notes/ai'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and not __fish_seen_subcommand_from apply commit check parse undo redo squash step-back step-forward status repair-index log show blame stats provenance watch mcp prompt config context hooks agent-hook install-man demo help" -f -a "watch" -d 'Watch FILE and apply each new complete block once, whenever the file changes'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and not __fish_seen_subcommand_from apply commit check parse undo redo squash step-back step-forward status repair-index log show blame stats provenance watch mcp prompt config context hooks agent-hook install-man demo help" -f -a "mcp" -d 'Serve git-clada as an MCP server over stdio: the edit tool an agent calls'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and not __fish_seen_subcommand_from apply commit check parse undo redo squash step-back step-forward status repair-index log show blame stats provenance watch mcp prompt config context hooks agent-hook install-man demo help" -f -a "prompt" -d 'Print the instructions to give a model (system prompt or custom instructions)'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and not __fish_seen_subcommand_from apply commit check parse undo redo squash step-back step-forward status repair-index log show blame stats provenance watch mcp prompt config context hooks agent-hook install-man demo help" -f -a "config" -d 'Show the effective configuration: every key, its value and where it came from (default, the repository\'s `.clada.yml`, the user\'s `<config dir>/clada/config.yml`, or git config)'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and not __fish_seen_subcommand_from apply commit check parse undo redo squash step-back step-forward status repair-index log show blame stats provenance watch mcp prompt config context hooks agent-hook install-man demo help" -f -a "context" -d 'Print what a model needs for its first turn: the instructions, a map of the repository, and the chosen files with line numbers'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and not __fish_seen_subcommand_from apply commit check parse undo redo squash step-back step-forward status repair-index log show blame stats provenance watch mcp prompt config context hooks agent-hook install-man demo help" -f -a "hooks" -d 'Install or remove git-clada\'s git hooks (a pre-commit hook that refuses stray block markers; post-commit and post-rewrite hooks that keep AI line attribution through cherry-pick, amend and rebase; pre-push, post-merge and post-checkout hooks and a fetch refspec per remote that share the attribution logs with your remotes), or try the repository\'s hooks in the sandbox AI commits run them in. Existing hook content is preserved; core.hooksPath is respected'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and not __fish_seen_subcommand_from apply commit check parse undo redo squash step-back step-forward status repair-index log show blame stats provenance watch mcp prompt config context hooks agent-hook install-man demo help" -f -a "agent-hook" -d 'Record an agent\'s own edits: checkpoints per tool call, one AI commit per turn'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and not __fish_seen_subcommand_from apply commit check parse undo redo squash step-back step-forward status repair-index log show blame stats provenance watch mcp prompt config context hooks agent-hook install-man demo help" -f -a "install-man" -d 'Install the man pages, so `git clada --help` and `man git-clada` work'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and not __fish_seen_subcommand_from apply commit check parse undo redo squash step-back step-forward status repair-index log show blame stats provenance watch mcp prompt config context hooks agent-hook install-man demo help" -f -a "demo" -d 'Create a scratch repository in a temporary directory, apply the bundled example reply, print the report and the commit, then undo it'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and not __fish_seen_subcommand_from apply commit check parse undo redo squash step-back step-forward status repair-index log show blame stats provenance watch mcp prompt config context hooks agent-hook install-man demo help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and __fish_seen_subcommand_from provenance" -f -a "backfill" -d 'Write the logs of AI commits made before git-clada wrote them'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and __fish_seen_subcommand_from provenance" -f -a "rewritten" -d 'For git\'s post-rewrite hook (installed by `git clada hooks install`): carry the logs of rewritten commits to their new ids, reading git\'s `<old> <new>` lines on standard input. Never fails the rewrite: problems are printed and the exit status is 0'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and __fish_seen_subcommand_from provenance" -f -a "post-commit" -d 'For git\'s post-commit hook: after a cherry-pick, a merge --squash or a reset --soft, carry the logs of the commits the new one replaces, where git\'s evidence names them; and write the log of a commit holding lines an agent\'s open checkpoints attribute. Never fails: problems are printed and the exit status is 0'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and __fish_seen_subcommand_from provenance" -f -a "pre-push" -d 'For git\'s pre-push hook: push refs/notes/ai to REMOTE where its logs are shared, after merging what it has (fetching, merging and pushing again when another clone pushed first). Never asks for credentials and never fails the push: a problem is one line'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and __fish_seen_subcommand_from provenance" -f -a "fetched" -d 'For git\'s post-merge and post-checkout hooks: merge the logs fetched from the remotes (refs/notes/remotes/<remote>/ai) into refs/notes/ai. Never fails'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and __fish_seen_subcommand_from hooks" -f -a "install" -d 'Install the hooks, and share the AI attribution logs (refs/notes/ai) with every remote: a plain `git push` also pushes them (never forced, asking for no credentials), a plain `git fetch`/`git pull` brings the remote\'s into refs/notes/remotes/<remote>/ai, merged at the next merge, checkout or rewrite, or when git-clada reads them. A remote added later is shared once you run this again'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and __fish_seen_subcommand_from hooks" -f -a "uninstall" -d 'Remove the hooks, keeping any other content of the hook files, and the fetch refspecs that share the logs'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and __fish_seen_subcommand_from hooks" -f -a "check" -d 'Run the repository\'s pre-commit and commit-msg hooks and hooks.after in the sandbox an AI commit runs them in, on the current index (nothing is committed; a fixer may rewrite files, as with git commit), and print what failed and the configuration line that would allow it'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and __fish_seen_subcommand_from hooks" -f -a "prepare" -d 'Fill git-clada\'s own hook caches once, with network, in the sandbox (pre-commit install-hooks for a .pre-commit-config.yaml)'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and __fish_seen_subcommand_from agent-hook" -f -a "install" -d 'Add git-clada\'s hooks to the agent\'s settings (again: no change; your other hooks stay)'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and __fish_seen_subcommand_from agent-hook" -f -a "uninstall" -d 'Remove git-clada\'s hooks from the agent\'s settings, and only those'
complete -c git-clada -n "__fish_git_clada_using_subcommand help; and __fish_seen_subcommand_from agent-hook" -f -a "status" -d 'For each agent whose settings hold git-clada\'s hooks: whether every event is registered, whether the agent trusts the hooks, when git-clada last heard from it in this repository, and whether git\'s attribution hooks are installed'
