
use builtin;
use str;

set edit:completion:arg-completer[git-clada] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'git-clada'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'git-clada'= {
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand apply 'Apply the action blocks of an LLM reply and commit the result as one AI commit'
            cand commit 'Commit the AI''s changes that an apply left pending, as their AI commit'
            cand check 'Parse and validate replies without changing anything; exit 1 on any error. With --staged: refuse staged content that holds leftover block markers'
            cand parse 'Print the raw block parse result of a reply as JSON in the reference shape'
            cand undo 'Take back the last clada operation on this branch; repeated, the one before it'
            cand redo 'Re-apply what the last `git clada undo` took back, if nothing moved since'
            cand squash 'Collapse runs of AI commits into one commit each'
            cand step-back 'Move the worktree one commit back, parking uncommitted work first'
            cand step-forward 'Move the worktree one commit toward the tip step-back started from'
            cand status 'Say where you are: the branch, whether you are stepped back (and how far), and the last clada operation that undo would take back'
            cand repair-index 'Repair the index''s cache-tree if an earlier git-clada wrote it wrong'
            cand log 'List git-clada commits on the current branch: short hash, age, subject, blocks ok/failed'
            cand show 'Show the reply an AI commit was made from and its result report'
            cand blame 'Show who wrote each line of a file: the last commit that changed it and whether an AI wrote it'
            cand stats 'Count the lines of a range by who wrote them: AI (per agent and model), human or unknown'
            cand provenance 'Line-level AI attribution: the Git AI Standard''s authorship logs in refs/notes/ai'
            cand watch 'Watch FILE and apply each new complete block once, whenever the file changes'
            cand mcp 'Serve git-clada as an MCP server over stdio: the edit tool an agent calls'
            cand prompt 'Print the instructions to give a model (system prompt or custom instructions)'
            cand config 'Show the effective configuration: every key, its value and where it came from (default, the repository''s `.clada.yml`, the user''s `<config dir>/clada/config.yml`, or git config)'
            cand context 'Print what a model needs for its first turn: the instructions, a map of the repository, and the chosen files with line numbers'
            cand hooks 'Install or remove git-clada''s git hooks (a pre-commit hook that refuses stray block markers; post-commit and post-rewrite hooks that keep AI line attribution through cherry-pick, amend and rebase; pre-push, post-merge and post-checkout hooks and a fetch refspec per remote that share the attribution logs with your remotes), or try the repository''s hooks in the sandbox AI commits run them in. Existing hook content is preserved; core.hooksPath is respected'
            cand agent-hook 'Record an agent''s own edits: checkpoints per tool call, one AI commit per turn'
            cand install-man 'Install the man pages, so `git clada --help` and `man git-clada` work'
            cand demo 'Create a scratch repository in a temporary directory, apply the bundled example reply, print the report and the commit, then undo it'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'git-clada;apply'= {
            cand --dialect 'Which format to read: auto reads each block in the format its opening line shows (SHAM, NESL, nesl, CSL, CML, the replacer format, aider''s SEARCH/REPLACE, apply_patch, unified diffs); a format name reads only that one'
            cand --wip 'What happens to uncommitted work: `keep` leaves it uncommitted (staged stays staged) and the AI commit holds only the AI''s changes; `commit` first records it in a `clada: snapshot before AI edit` commit on the branch. Default: config `wip`, else keep'
            cand --git-author 'Author of the AI commit, as `NAME <EMAIL>` (like `git commit --author`). The committer, and any snapshot of your own work, keep your identity'
            cand -m 'Use MESSAGE as the commit subject instead of the generated `AI: …` summary'
            cand --message 'Use MESSAGE as the commit subject instead of the generated `AI: …` summary'
            cand --exec 'Policy for `exec` blocks: ask, allow, or deny. Default: config `exec`, else ask (without a terminal only approved and read-only commands run)'
            cand --timeout 'Time limit per exec block without its own `timeout` (`30`, `500ms`, `2m`). Default: config `timeout`, else 30s'
            cand --max-output 'Output cap per stream of an exec block (`1048576`, `512k`, `10MiB`). Default: config `max_output`, else 10MiB'
            cand --total-timeout 'Time limit for all exec blocks of the reply together. Default: config `total_timeout`, else none'
            cand --agent 'The agent that wrote the reply, as the Git AI Standard names it (claude, cursor, gemini, codex, …), for the authorship log in refs/notes/ai. Default: config provenance.agent, the MCP client''s name, else git-clada'
            cand --model 'The model that wrote the reply. Default: config provenance.model, else unknown'
            cand --conversation 'The agent''s conversation id, behind the log''s session id. Default: the MCP session (Clada-Session), else the reply''s blob id'
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --no-git 'Run the actions without git: paths are relative to the current directory, nothing is committed'
            cand --allow-outside 'Permit absolute paths outside the worktree (such changes are never committed)'
            cand --atomic 'All-or-nothing: if any block fails, restore every file and commit nothing'
            cand --no-commit 'Apply and stage the changes but do not commit'
            cand --no-verify 'Do not run the pre-commit, commit-msg and post-commit hooks'
            cand --no-snapshot 'Refuse to apply when there is uncommitted work'
            cand --force 'Apply the reply even when it is the one applied last and its files are still as it left them (a reply pasted twice); without it the second paste is reported "already applied" and nothing runs, its exec blocks included'
            cand --paste 'Read the reply from the clipboard instead of a file or stdin'
            cand --copy 'Also put the llm report on the clipboard (OSC 52 to the terminal when no display server is reachable); a failed copy is reported, never fails the apply. Also on with config `clipboard.copy: true`'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;commit'= {
            cand -m 'Replaces the generated subject of the AI commit'
            cand --message 'Replaces the generated subject of the AI commit'
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --no-verify 'Do not run the pre-commit, commit-msg and post-commit hooks'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;check'= {
            cand --dialect 'Which format to read: auto reads each block in the format its opening line shows (SHAM, NESL, nesl, CSL, CML, the replacer format, aider''s SEARCH/REPLACE, apply_patch, unified diffs); a format name reads only that one'
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --staged 'Check the staged content for leftover block markers (the pre-commit hook''s check)'
            cand --no-git 'Resolve paths against the current directory instead of the worktree root'
            cand --allow-outside 'Accept absolute paths outside the root (as `apply --allow-outside` would)'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;parse'= {
            cand --dialect 'Which format to read: auto reads each block in the format its opening line shows (SHAM, NESL, nesl, CSL, CML, the replacer format, aider''s SEARCH/REPLACE, apply_patch, unified diffs); a format name reads only that one'
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;undo'= {
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --list 'List what undo takes back (newest first) and what redo puts back, and change nothing'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;redo'= {
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;squash'= {
            cand --mode 'Which commits to select'
            cand --hours 'With --mode hours: AI commits made in the last N hours'
            cand --days 'With --mode days: AI commits made in the last N days'
            cand --msg-target 'With --mode msg_contains: AI commits whose message contains S'
            cand --session 'With --mode session: the session whose commits to squash — an agent''s session (its turns) or a `git clada mcp` session (the `Clada-Session` trailer, shown by `git clada log`). Default: the session of the newest such commit'
            cand --message 'Subject of the squashed commit (default: the subjects combined)'
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --contiguous-only 'Squash each contiguous run separately, keeping human commits in between (default)'
            cand --no-contiguous-only 'Gather the selected commits across human commits, if that needs no conflict resolution'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;step-back'= {
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;step-forward'= {
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --all 'Return to the tip at once'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;status'= {
            cand --ack 'Mark PATH reviewed: a file a hook calls that a reply changed, which status names until you commit it or mark it so'
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;repair-index'= {
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;log'= {
            cand -n 'Show at most N commits'
            cand --max-count 'Show at most N commits'
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;show'= {
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;blame'= {
            cand -L 'Only lines A to B (1-based, inclusive), as `git blame -L A,B`'
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;stats'= {
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;provenance'= {
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand backfill 'Write the logs of AI commits made before git-clada wrote them'
            cand rewritten 'For git''s post-rewrite hook (installed by `git clada hooks install`): carry the logs of rewritten commits to their new ids, reading git''s `<old> <new>` lines on standard input. Never fails the rewrite: problems are printed and the exit status is 0'
            cand post-commit 'For git''s post-commit hook: after a cherry-pick, a merge --squash or a reset --soft, carry the logs of the commits the new one replaces, where git''s evidence names them; and write the log of a commit holding lines an agent''s open checkpoints attribute. Never fails: problems are printed and the exit status is 0'
            cand pre-push 'For git''s pre-push hook: push refs/notes/ai to REMOTE where its logs are shared, after merging what it has (fetching, merging and pushing again when another clone pushed first). Never asks for credentials and never fails the push: a problem is one line'
            cand fetched 'For git''s post-merge and post-checkout hooks: merge the logs fetched from the remotes (refs/notes/remotes/<remote>/ai) into refs/notes/ai. Never fails'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'git-clada;provenance;backfill'= {
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;provenance;rewritten'= {
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;provenance;post-commit'= {
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;provenance;pre-push'= {
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;provenance;fetched'= {
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;provenance;help'= {
            cand backfill 'Write the logs of AI commits made before git-clada wrote them'
            cand rewritten 'For git''s post-rewrite hook (installed by `git clada hooks install`): carry the logs of rewritten commits to their new ids, reading git''s `<old> <new>` lines on standard input. Never fails the rewrite: problems are printed and the exit status is 0'
            cand post-commit 'For git''s post-commit hook: after a cherry-pick, a merge --squash or a reset --soft, carry the logs of the commits the new one replaces, where git''s evidence names them; and write the log of a commit holding lines an agent''s open checkpoints attribute. Never fails: problems are printed and the exit status is 0'
            cand pre-push 'For git''s pre-push hook: push refs/notes/ai to REMOTE where its logs are shared, after merging what it has (fetching, merging and pushing again when another clone pushed first). Never asks for credentials and never fails the push: a problem is one line'
            cand fetched 'For git''s post-merge and post-checkout hooks: merge the logs fetched from the remotes (refs/notes/remotes/<remote>/ai) into refs/notes/ai. Never fails'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'git-clada;provenance;help;backfill'= {
        }
        &'git-clada;provenance;help;rewritten'= {
        }
        &'git-clada;provenance;help;post-commit'= {
        }
        &'git-clada;provenance;help;pre-push'= {
        }
        &'git-clada;provenance;help;fetched'= {
        }
        &'git-clada;provenance;help;help'= {
        }
        &'git-clada;watch'= {
            cand --agent 'The agent that wrote the reply, as the Git AI Standard names it (claude, cursor, gemini, codex, …), for the authorship log in refs/notes/ai. Default: config provenance.agent, the MCP client''s name, else git-clada'
            cand --model 'The model that wrote the reply. Default: config provenance.model, else unknown'
            cand --conversation 'The agent''s conversation id, behind the log''s session id. Default: the MCP session (Clada-Session), else the reply''s blob id'
            cand --output 'Also write each batch''s llm report to this file'
            cand --dialect 'Which format to read: auto reads each block in the format its opening line shows (SHAM, NESL, nesl, CSL, CML, the replacer format, aider''s SEARCH/REPLACE, apply_patch, unified diffs); a format name reads only that one'
            cand --exec 'Policy for `exec` blocks: ask on a terminal, allow, or deny. Default: ask on a terminal, deny otherwise'
            cand --debounce 'Milliseconds the file must stay unchanged before it is read'
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --copy 'Put each batch''s llm report on the clipboard (OSC 52 to the terminal when no display server is reachable). Also on with config `clipboard.copy: true`'
            cand --prepend 'Write each batch''s summary at the top of the watched file, as the original listener did'
            cand --no-verify 'Do not run the pre-commit, commit-msg and post-commit hooks'
            cand --poll 'Check the file by polling only, without OS notifications (for network file systems)'
            cand --once 'Apply what is new once and exit, without watching'
            cand --skip-existing 'Treat the blocks already in the file as applied, without applying them'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;mcp'= {
            cand --exec 'Policy for `exec` blocks: ask, allow, or deny. Default: config `exec`, else ask (without a terminal only approved and read-only commands run)'
            cand --timeout 'Time limit per exec block without its own `timeout` (`30`, `500ms`, `2m`). Default: config `timeout`, else 30s'
            cand --max-output 'Output cap per stream of an exec block (`1048576`, `512k`, `10MiB`). Default: config `max_output`, else 10MiB'
            cand --total-timeout 'Time limit for all exec blocks of the reply together. Default: config `total_timeout`, else none'
            cand --agent 'The agent that wrote the reply, as the Git AI Standard names it (claude, cursor, gemini, codex, …), for the authorship log in refs/notes/ai. Default: config provenance.agent, the MCP client''s name, else git-clada'
            cand --model 'The model that wrote the reply. Default: config provenance.model, else unknown'
            cand --conversation 'The agent''s conversation id, behind the log''s session id. Default: the MCP session (Clada-Session), else the reply''s blob id'
            cand --session 'The session id in the `Clada-Session` trailer of this server''s commits (default: a new `mcp-…` id per server; `git clada log` shows it, `git clada squash --mode session` collapses a session''s commits)'
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --no-git 'Serve a plain folder (the current one, or -C DIR) without git: nothing is committed, and undo, redo, status, log and show are not available'
            cand --no-verify 'Do not run the pre-commit, commit-msg and post-commit hooks on the AI commits'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;prompt'= {
            cand --dialect 'The block spelling to teach'
            cand --actions 'Only these actions (comma-separated), e.g. without exec'
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;config'= {
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --trust 'Trust the repository''s `.clada.yml` as it is now, so the commands and looser settings it sets apply; also imports the commands of an old `.clada/allowed-commands.json` into your approvals (read both first)'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;context'= {
            cand --map-limit 'At most this many files in the map'
            cand --dialect 'The block spelling the instructions teach'
            cand --actions 'Only these actions in the instructions (comma-separated)'
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --copy 'Copy the context to the clipboard (what happened is said on stderr)'
            cand --no-instructions 'Leave the instructions out (the model already has them)'
            cand --no-map 'Leave the repository map out'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;hooks'= {
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand install 'Install the hooks, and share the AI attribution logs (refs/notes/ai) with every remote: a plain `git push` also pushes them (never forced, asking for no credentials), a plain `git fetch`/`git pull` brings the remote''s into refs/notes/remotes/<remote>/ai, merged at the next merge, checkout or rewrite, or when git-clada reads them. A remote added later is shared once you run this again'
            cand uninstall 'Remove the hooks, keeping any other content of the hook files, and the fetch refspecs that share the logs'
            cand check 'Run the repository''s pre-commit and commit-msg hooks and hooks.after in the sandbox an AI commit runs them in, on the current index (nothing is committed; a fixer may rewrite files, as with git commit), and print what failed and the configuration line that would allow it'
            cand prepare 'Fill git-clada''s own hook caches once, with network, in the sandbox (pre-commit install-hooks for a .pre-commit-config.yaml)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'git-clada;hooks;install'= {
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --no-share 'Leave sharing out (and stop it where an earlier install set it up)'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;hooks;uninstall'= {
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;hooks;check'= {
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;hooks;prepare'= {
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;hooks;help'= {
            cand install 'Install the hooks, and share the AI attribution logs (refs/notes/ai) with every remote: a plain `git push` also pushes them (never forced, asking for no credentials), a plain `git fetch`/`git pull` brings the remote''s into refs/notes/remotes/<remote>/ai, merged at the next merge, checkout or rewrite, or when git-clada reads them. A remote added later is shared once you run this again'
            cand uninstall 'Remove the hooks, keeping any other content of the hook files, and the fetch refspecs that share the logs'
            cand check 'Run the repository''s pre-commit and commit-msg hooks and hooks.after in the sandbox an AI commit runs them in, on the current index (nothing is committed; a fixer may rewrite files, as with git commit), and print what failed and the configuration line that would allow it'
            cand prepare 'Fill git-clada''s own hook caches once, with network, in the sandbox (pre-commit install-hooks for a .pre-commit-config.yaml)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'git-clada;hooks;help;install'= {
        }
        &'git-clada;hooks;help;uninstall'= {
        }
        &'git-clada;hooks;help;check'= {
        }
        &'git-clada;hooks;help;prepare'= {
        }
        &'git-clada;hooks;help;help'= {
        }
        &'git-clada;agent-hook'= {
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand install 'Add git-clada''s hooks to the agent''s settings (again: no change; your other hooks stay)'
            cand uninstall 'Remove git-clada''s hooks from the agent''s settings, and only those'
            cand status 'For each agent whose settings hold git-clada''s hooks: whether every event is registered, whether the agent trusts the hooks, when git-clada last heard from it in this repository, and whether git''s attribution hooks are installed'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'git-clada;agent-hook;install'= {
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --user 'Your own settings for every project (the default): ~/.claude/settings.json, ~/.cursor/hooks.json, ~/.gemini/settings.json, ~/.codex/hooks.json'
            cand --project-local 'Your own settings for this repository only (.claude/settings.local.json; Claude Code only)'
            cand --shared 'The repository''s committed settings (.claude/settings.json, .cursor/hooks.json, .gemini/settings.json, .codex/hooks.json), guarded so teammates without git-clada are not broken'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;agent-hook;uninstall'= {
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --user 'Your own settings for every project (the default): ~/.claude/settings.json, ~/.cursor/hooks.json, ~/.gemini/settings.json, ~/.codex/hooks.json'
            cand --project-local 'Your own settings for this repository only (.claude/settings.local.json; Claude Code only)'
            cand --shared 'The repository''s committed settings (.claude/settings.json, .cursor/hooks.json, .gemini/settings.json, .codex/hooks.json), guarded so teammates without git-clada are not broken'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;agent-hook;status'= {
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;agent-hook;help'= {
            cand install 'Add git-clada''s hooks to the agent''s settings (again: no change; your other hooks stay)'
            cand uninstall 'Remove git-clada''s hooks from the agent''s settings, and only those'
            cand status 'For each agent whose settings hold git-clada''s hooks: whether every event is registered, whether the agent trusts the hooks, when git-clada last heard from it in this repository, and whether git''s attribution hooks are installed'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'git-clada;agent-hook;help;install'= {
        }
        &'git-clada;agent-hook;help;uninstall'= {
        }
        &'git-clada;agent-hook;help;status'= {
        }
        &'git-clada;agent-hook;help;help'= {
        }
        &'git-clada;install-man'= {
            cand --dir 'Directory that receives git-clada.1 and git-clada-<command>.1 (a `man1` directory)'
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;demo'= {
            cand -C 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)'
            cand --format 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)'
            cand --keep 'Keep the scratch repository (its path is printed) instead of deleting it'
            cand --dry-run 'Show what would happen without changing any file, ref or the index'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'git-clada;help'= {
            cand apply 'Apply the action blocks of an LLM reply and commit the result as one AI commit'
            cand commit 'Commit the AI''s changes that an apply left pending, as their AI commit'
            cand check 'Parse and validate replies without changing anything; exit 1 on any error. With --staged: refuse staged content that holds leftover block markers'
            cand parse 'Print the raw block parse result of a reply as JSON in the reference shape'
            cand undo 'Take back the last clada operation on this branch; repeated, the one before it'
            cand redo 'Re-apply what the last `git clada undo` took back, if nothing moved since'
            cand squash 'Collapse runs of AI commits into one commit each'
            cand step-back 'Move the worktree one commit back, parking uncommitted work first'
            cand step-forward 'Move the worktree one commit toward the tip step-back started from'
            cand status 'Say where you are: the branch, whether you are stepped back (and how far), and the last clada operation that undo would take back'
            cand repair-index 'Repair the index''s cache-tree if an earlier git-clada wrote it wrong'
            cand log 'List git-clada commits on the current branch: short hash, age, subject, blocks ok/failed'
            cand show 'Show the reply an AI commit was made from and its result report'
            cand blame 'Show who wrote each line of a file: the last commit that changed it and whether an AI wrote it'
            cand stats 'Count the lines of a range by who wrote them: AI (per agent and model), human or unknown'
            cand provenance 'Line-level AI attribution: the Git AI Standard''s authorship logs in refs/notes/ai'
            cand watch 'Watch FILE and apply each new complete block once, whenever the file changes'
            cand mcp 'Serve git-clada as an MCP server over stdio: the edit tool an agent calls'
            cand prompt 'Print the instructions to give a model (system prompt or custom instructions)'
            cand config 'Show the effective configuration: every key, its value and where it came from (default, the repository''s `.clada.yml`, the user''s `<config dir>/clada/config.yml`, or git config)'
            cand context 'Print what a model needs for its first turn: the instructions, a map of the repository, and the chosen files with line numbers'
            cand hooks 'Install or remove git-clada''s git hooks (a pre-commit hook that refuses stray block markers; post-commit and post-rewrite hooks that keep AI line attribution through cherry-pick, amend and rebase; pre-push, post-merge and post-checkout hooks and a fetch refspec per remote that share the attribution logs with your remotes), or try the repository''s hooks in the sandbox AI commits run them in. Existing hook content is preserved; core.hooksPath is respected'
            cand agent-hook 'Record an agent''s own edits: checkpoints per tool call, one AI commit per turn'
            cand install-man 'Install the man pages, so `git clada --help` and `man git-clada` work'
            cand demo 'Create a scratch repository in a temporary directory, apply the bundled example reply, print the report and the commit, then undo it'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'git-clada;help;apply'= {
        }
        &'git-clada;help;commit'= {
        }
        &'git-clada;help;check'= {
        }
        &'git-clada;help;parse'= {
        }
        &'git-clada;help;undo'= {
        }
        &'git-clada;help;redo'= {
        }
        &'git-clada;help;squash'= {
        }
        &'git-clada;help;step-back'= {
        }
        &'git-clada;help;step-forward'= {
        }
        &'git-clada;help;status'= {
        }
        &'git-clada;help;repair-index'= {
        }
        &'git-clada;help;log'= {
        }
        &'git-clada;help;show'= {
        }
        &'git-clada;help;blame'= {
        }
        &'git-clada;help;stats'= {
        }
        &'git-clada;help;provenance'= {
            cand backfill 'Write the logs of AI commits made before git-clada wrote them'
            cand rewritten 'For git''s post-rewrite hook (installed by `git clada hooks install`): carry the logs of rewritten commits to their new ids, reading git''s `<old> <new>` lines on standard input. Never fails the rewrite: problems are printed and the exit status is 0'
            cand post-commit 'For git''s post-commit hook: after a cherry-pick, a merge --squash or a reset --soft, carry the logs of the commits the new one replaces, where git''s evidence names them; and write the log of a commit holding lines an agent''s open checkpoints attribute. Never fails: problems are printed and the exit status is 0'
            cand pre-push 'For git''s pre-push hook: push refs/notes/ai to REMOTE where its logs are shared, after merging what it has (fetching, merging and pushing again when another clone pushed first). Never asks for credentials and never fails the push: a problem is one line'
            cand fetched 'For git''s post-merge and post-checkout hooks: merge the logs fetched from the remotes (refs/notes/remotes/<remote>/ai) into refs/notes/ai. Never fails'
        }
        &'git-clada;help;provenance;backfill'= {
        }
        &'git-clada;help;provenance;rewritten'= {
        }
        &'git-clada;help;provenance;post-commit'= {
        }
        &'git-clada;help;provenance;pre-push'= {
        }
        &'git-clada;help;provenance;fetched'= {
        }
        &'git-clada;help;watch'= {
        }
        &'git-clada;help;mcp'= {
        }
        &'git-clada;help;prompt'= {
        }
        &'git-clada;help;config'= {
        }
        &'git-clada;help;context'= {
        }
        &'git-clada;help;hooks'= {
            cand install 'Install the hooks, and share the AI attribution logs (refs/notes/ai) with every remote: a plain `git push` also pushes them (never forced, asking for no credentials), a plain `git fetch`/`git pull` brings the remote''s into refs/notes/remotes/<remote>/ai, merged at the next merge, checkout or rewrite, or when git-clada reads them. A remote added later is shared once you run this again'
            cand uninstall 'Remove the hooks, keeping any other content of the hook files, and the fetch refspecs that share the logs'
            cand check 'Run the repository''s pre-commit and commit-msg hooks and hooks.after in the sandbox an AI commit runs them in, on the current index (nothing is committed; a fixer may rewrite files, as with git commit), and print what failed and the configuration line that would allow it'
            cand prepare 'Fill git-clada''s own hook caches once, with network, in the sandbox (pre-commit install-hooks for a .pre-commit-config.yaml)'
        }
        &'git-clada;help;hooks;install'= {
        }
        &'git-clada;help;hooks;uninstall'= {
        }
        &'git-clada;help;hooks;check'= {
        }
        &'git-clada;help;hooks;prepare'= {
        }
        &'git-clada;help;agent-hook'= {
            cand install 'Add git-clada''s hooks to the agent''s settings (again: no change; your other hooks stay)'
            cand uninstall 'Remove git-clada''s hooks from the agent''s settings, and only those'
            cand status 'For each agent whose settings hold git-clada''s hooks: whether every event is registered, whether the agent trusts the hooks, when git-clada last heard from it in this repository, and whether git''s attribution hooks are installed'
        }
        &'git-clada;help;agent-hook;install'= {
        }
        &'git-clada;help;agent-hook;uninstall'= {
        }
        &'git-clada;help;agent-hook;status'= {
        }
        &'git-clada;help;install-man'= {
        }
        &'git-clada;help;demo'= {
        }
        &'git-clada;help;help'= {
        }
    ]
    $completions[$command]
}
