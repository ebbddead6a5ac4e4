
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'git-clada' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'git-clada'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'git-clada' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Apply the action blocks of an LLM reply and commit the result as one AI commit')
            [CompletionResult]::new('commit', 'commit', [CompletionResultType]::ParameterValue, 'Commit the AI''s changes that an apply left pending, as their AI commit')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Parse and validate replies without changing anything; exit 1 on any error. With --staged: refuse staged content that holds leftover block markers')
            [CompletionResult]::new('parse', 'parse', [CompletionResultType]::ParameterValue, 'Print the raw block parse result of a reply as JSON in the reference shape')
            [CompletionResult]::new('undo', 'undo', [CompletionResultType]::ParameterValue, 'Take back the last clada operation on this branch; repeated, the one before it')
            [CompletionResult]::new('redo', 'redo', [CompletionResultType]::ParameterValue, 'Re-apply what the last `git clada undo` took back, if nothing moved since')
            [CompletionResult]::new('squash', 'squash', [CompletionResultType]::ParameterValue, 'Collapse runs of AI commits into one commit each')
            [CompletionResult]::new('step-back', 'step-back', [CompletionResultType]::ParameterValue, 'Move the worktree one commit back, parking uncommitted work first')
            [CompletionResult]::new('step-forward', 'step-forward', [CompletionResultType]::ParameterValue, 'Move the worktree one commit toward the tip step-back started from')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Say where you are: the branch, whether you are stepped back (and how far), and the last clada operation that undo would take back')
            [CompletionResult]::new('repair-index', 'repair-index', [CompletionResultType]::ParameterValue, 'Repair the index''s cache-tree if an earlier git-clada wrote it wrong')
            [CompletionResult]::new('log', 'log', [CompletionResultType]::ParameterValue, 'List git-clada commits on the current branch: short hash, age, subject, blocks ok/failed')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show the reply an AI commit was made from and its result report')
            [CompletionResult]::new('blame', 'blame', [CompletionResultType]::ParameterValue, 'Show who wrote each line of a file: the last commit that changed it and whether an AI wrote it')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Count the lines of a range by who wrote them: AI (per agent and model), human or unknown')
            [CompletionResult]::new('provenance', 'provenance', [CompletionResultType]::ParameterValue, 'Line-level AI attribution: the Git AI Standard''s authorship logs in refs/notes/ai')
            [CompletionResult]::new('watch', 'watch', [CompletionResultType]::ParameterValue, 'Watch FILE and apply each new complete block once, whenever the file changes')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve git-clada as an MCP server over stdio: the edit tool an agent calls')
            [CompletionResult]::new('prompt', 'prompt', [CompletionResultType]::ParameterValue, 'Print the instructions to give a model (system prompt or custom instructions)')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Show the effective configuration: every key, its value and where it came from (default, the repository''s `.clada.yml`, the user''s `<config dir>/clada/config.yml`, or git config)')
            [CompletionResult]::new('context', 'context', [CompletionResultType]::ParameterValue, 'Print what a model needs for its first turn: the instructions, a map of the repository, and the chosen files with line numbers')
            [CompletionResult]::new('hooks', 'hooks', [CompletionResultType]::ParameterValue, 'Install or remove git-clada''s git hooks (a pre-commit hook that refuses stray block markers; post-commit and post-rewrite hooks that keep AI line attribution through cherry-pick, amend and rebase; pre-push, post-merge and post-checkout hooks and a fetch refspec per remote that share the attribution logs with your remotes), or try the repository''s hooks in the sandbox AI commits run them in. Existing hook content is preserved; core.hooksPath is respected')
            [CompletionResult]::new('agent-hook', 'agent-hook', [CompletionResultType]::ParameterValue, 'Record an agent''s own edits: checkpoints per tool call, one AI commit per turn')
            [CompletionResult]::new('install-man', 'install-man', [CompletionResultType]::ParameterValue, 'Install the man pages, so `git clada --help` and `man git-clada` work')
            [CompletionResult]::new('demo', 'demo', [CompletionResultType]::ParameterValue, 'Create a scratch repository in a temporary directory, apply the bundled example reply, print the report and the commit, then undo it')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'git-clada;apply' {
            [CompletionResult]::new('--dialect', '--dialect', [CompletionResultType]::ParameterName, 'Which format to read: auto reads each block in the format its opening line shows (SHAM, NESL, nesl, CSL, CML, the replacer format, aider''s SEARCH/REPLACE, apply_patch, unified diffs); a format name reads only that one')
            [CompletionResult]::new('--wip', '--wip', [CompletionResultType]::ParameterName, 'What happens to uncommitted work: `keep` leaves it uncommitted (staged stays staged) and the AI commit holds only the AI''s changes; `commit` first records it in a `clada: snapshot before AI edit` commit on the branch. Default: config `wip`, else keep')
            [CompletionResult]::new('--git-author', '--git-author', [CompletionResultType]::ParameterName, 'Author of the AI commit, as `NAME <EMAIL>` (like `git commit --author`). The committer, and any snapshot of your own work, keep your identity')
            [CompletionResult]::new('-m', '-m', [CompletionResultType]::ParameterName, 'Use MESSAGE as the commit subject instead of the generated `AI: …` summary')
            [CompletionResult]::new('--message', '--message', [CompletionResultType]::ParameterName, 'Use MESSAGE as the commit subject instead of the generated `AI: …` summary')
            [CompletionResult]::new('--exec', '--exec', [CompletionResultType]::ParameterName, 'Policy for `exec` blocks: ask, allow, or deny. Default: config `exec`, else ask (without a terminal only approved and read-only commands run)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Time limit per exec block without its own `timeout` (`30`, `500ms`, `2m`). Default: config `timeout`, else 30s')
            [CompletionResult]::new('--max-output', '--max-output', [CompletionResultType]::ParameterName, 'Output cap per stream of an exec block (`1048576`, `512k`, `10MiB`). Default: config `max_output`, else 10MiB')
            [CompletionResult]::new('--total-timeout', '--total-timeout', [CompletionResultType]::ParameterName, 'Time limit for all exec blocks of the reply together. Default: config `total_timeout`, else none')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The agent that wrote the reply, as the Git AI Standard names it (claude, cursor, gemini, codex, …), for the authorship log in refs/notes/ai. Default: config provenance.agent, the MCP client''s name, else git-clada')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model that wrote the reply. Default: config provenance.model, else unknown')
            [CompletionResult]::new('--conversation', '--conversation', [CompletionResultType]::ParameterName, 'The agent''s conversation id, behind the log''s session id. Default: the MCP session (Clada-Session), else the reply''s blob id')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--no-git', '--no-git', [CompletionResultType]::ParameterName, 'Run the actions without git: paths are relative to the current directory, nothing is committed')
            [CompletionResult]::new('--allow-outside', '--allow-outside', [CompletionResultType]::ParameterName, 'Permit absolute paths outside the worktree (such changes are never committed)')
            [CompletionResult]::new('--atomic', '--atomic', [CompletionResultType]::ParameterName, 'All-or-nothing: if any block fails, restore every file and commit nothing')
            [CompletionResult]::new('--no-commit', '--no-commit', [CompletionResultType]::ParameterName, 'Apply and stage the changes but do not commit')
            [CompletionResult]::new('--no-verify', '--no-verify', [CompletionResultType]::ParameterName, 'Do not run the pre-commit, commit-msg and post-commit hooks')
            [CompletionResult]::new('--no-snapshot', '--no-snapshot', [CompletionResultType]::ParameterName, 'Refuse to apply when there is uncommitted work')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Apply the reply even when it is the one applied last and its files are still as it left them (a reply pasted twice); without it the second paste is reported "already applied" and nothing runs, its exec blocks included')
            [CompletionResult]::new('--paste', '--paste', [CompletionResultType]::ParameterName, 'Read the reply from the clipboard instead of a file or stdin')
            [CompletionResult]::new('--copy', '--copy', [CompletionResultType]::ParameterName, 'Also put the llm report on the clipboard (OSC 52 to the terminal when no display server is reachable); a failed copy is reported, never fails the apply. Also on with config `clipboard.copy: true`')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;commit' {
            [CompletionResult]::new('-m', '-m', [CompletionResultType]::ParameterName, 'Replaces the generated subject of the AI commit')
            [CompletionResult]::new('--message', '--message', [CompletionResultType]::ParameterName, 'Replaces the generated subject of the AI commit')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--no-verify', '--no-verify', [CompletionResultType]::ParameterName, 'Do not run the pre-commit, commit-msg and post-commit hooks')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;check' {
            [CompletionResult]::new('--dialect', '--dialect', [CompletionResultType]::ParameterName, 'Which format to read: auto reads each block in the format its opening line shows (SHAM, NESL, nesl, CSL, CML, the replacer format, aider''s SEARCH/REPLACE, apply_patch, unified diffs); a format name reads only that one')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--staged', '--staged', [CompletionResultType]::ParameterName, 'Check the staged content for leftover block markers (the pre-commit hook''s check)')
            [CompletionResult]::new('--no-git', '--no-git', [CompletionResultType]::ParameterName, 'Resolve paths against the current directory instead of the worktree root')
            [CompletionResult]::new('--allow-outside', '--allow-outside', [CompletionResultType]::ParameterName, 'Accept absolute paths outside the root (as `apply --allow-outside` would)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;parse' {
            [CompletionResult]::new('--dialect', '--dialect', [CompletionResultType]::ParameterName, 'Which format to read: auto reads each block in the format its opening line shows (SHAM, NESL, nesl, CSL, CML, the replacer format, aider''s SEARCH/REPLACE, apply_patch, unified diffs); a format name reads only that one')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;undo' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--list', '--list', [CompletionResultType]::ParameterName, 'List what undo takes back (newest first) and what redo puts back, and change nothing')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;redo' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;squash' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Which commits to select')
            [CompletionResult]::new('--hours', '--hours', [CompletionResultType]::ParameterName, 'With --mode hours: AI commits made in the last N hours')
            [CompletionResult]::new('--days', '--days', [CompletionResultType]::ParameterName, 'With --mode days: AI commits made in the last N days')
            [CompletionResult]::new('--msg-target', '--msg-target', [CompletionResultType]::ParameterName, 'With --mode msg_contains: AI commits whose message contains S')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'With --mode session: the session whose commits to squash — an agent''s session (its turns) or a `git clada mcp` session (the `Clada-Session` trailer, shown by `git clada log`). Default: the session of the newest such commit')
            [CompletionResult]::new('--message', '--message', [CompletionResultType]::ParameterName, 'Subject of the squashed commit (default: the subjects combined)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--contiguous-only', '--contiguous-only', [CompletionResultType]::ParameterName, 'Squash each contiguous run separately, keeping human commits in between (default)')
            [CompletionResult]::new('--no-contiguous-only', '--no-contiguous-only', [CompletionResultType]::ParameterName, 'Gather the selected commits across human commits, if that needs no conflict resolution')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;step-back' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;step-forward' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Return to the tip at once')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;status' {
            [CompletionResult]::new('--ack', '--ack', [CompletionResultType]::ParameterName, 'Mark PATH reviewed: a file a hook calls that a reply changed, which status names until you commit it or mark it so')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;repair-index' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;log' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Show at most N commits')
            [CompletionResult]::new('--max-count', '--max-count', [CompletionResultType]::ParameterName, 'Show at most N commits')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;show' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;blame' {
            [CompletionResult]::new('-L', '-L ', [CompletionResultType]::ParameterName, 'Only lines A to B (1-based, inclusive), as `git blame -L A,B`')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;stats' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;provenance' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('backfill', 'backfill', [CompletionResultType]::ParameterValue, 'Write the logs of AI commits made before git-clada wrote them')
            [CompletionResult]::new('rewritten', 'rewritten', [CompletionResultType]::ParameterValue, 'For git''s post-rewrite hook (installed by `git clada hooks install`): carry the logs of rewritten commits to their new ids, reading git''s `<old> <new>` lines on standard input. Never fails the rewrite: problems are printed and the exit status is 0')
            [CompletionResult]::new('post-commit', 'post-commit', [CompletionResultType]::ParameterValue, 'For git''s post-commit hook: after a cherry-pick, a merge --squash or a reset --soft, carry the logs of the commits the new one replaces, where git''s evidence names them; and write the log of a commit holding lines an agent''s open checkpoints attribute. Never fails: problems are printed and the exit status is 0')
            [CompletionResult]::new('pre-push', 'pre-push', [CompletionResultType]::ParameterValue, 'For git''s pre-push hook: push refs/notes/ai to REMOTE where its logs are shared, after merging what it has (fetching, merging and pushing again when another clone pushed first). Never asks for credentials and never fails the push: a problem is one line')
            [CompletionResult]::new('fetched', 'fetched', [CompletionResultType]::ParameterValue, 'For git''s post-merge and post-checkout hooks: merge the logs fetched from the remotes (refs/notes/remotes/<remote>/ai) into refs/notes/ai. Never fails')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'git-clada;provenance;backfill' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;provenance;rewritten' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;provenance;post-commit' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;provenance;pre-push' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;provenance;fetched' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;provenance;help' {
            [CompletionResult]::new('backfill', 'backfill', [CompletionResultType]::ParameterValue, 'Write the logs of AI commits made before git-clada wrote them')
            [CompletionResult]::new('rewritten', 'rewritten', [CompletionResultType]::ParameterValue, 'For git''s post-rewrite hook (installed by `git clada hooks install`): carry the logs of rewritten commits to their new ids, reading git''s `<old> <new>` lines on standard input. Never fails the rewrite: problems are printed and the exit status is 0')
            [CompletionResult]::new('post-commit', 'post-commit', [CompletionResultType]::ParameterValue, 'For git''s post-commit hook: after a cherry-pick, a merge --squash or a reset --soft, carry the logs of the commits the new one replaces, where git''s evidence names them; and write the log of a commit holding lines an agent''s open checkpoints attribute. Never fails: problems are printed and the exit status is 0')
            [CompletionResult]::new('pre-push', 'pre-push', [CompletionResultType]::ParameterValue, 'For git''s pre-push hook: push refs/notes/ai to REMOTE where its logs are shared, after merging what it has (fetching, merging and pushing again when another clone pushed first). Never asks for credentials and never fails the push: a problem is one line')
            [CompletionResult]::new('fetched', 'fetched', [CompletionResultType]::ParameterValue, 'For git''s post-merge and post-checkout hooks: merge the logs fetched from the remotes (refs/notes/remotes/<remote>/ai) into refs/notes/ai. Never fails')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'git-clada;provenance;help;backfill' {
            break
        }
        'git-clada;provenance;help;rewritten' {
            break
        }
        'git-clada;provenance;help;post-commit' {
            break
        }
        'git-clada;provenance;help;pre-push' {
            break
        }
        'git-clada;provenance;help;fetched' {
            break
        }
        'git-clada;provenance;help;help' {
            break
        }
        'git-clada;watch' {
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The agent that wrote the reply, as the Git AI Standard names it (claude, cursor, gemini, codex, …), for the authorship log in refs/notes/ai. Default: config provenance.agent, the MCP client''s name, else git-clada')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model that wrote the reply. Default: config provenance.model, else unknown')
            [CompletionResult]::new('--conversation', '--conversation', [CompletionResultType]::ParameterName, 'The agent''s conversation id, behind the log''s session id. Default: the MCP session (Clada-Session), else the reply''s blob id')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Also write each batch''s llm report to this file')
            [CompletionResult]::new('--dialect', '--dialect', [CompletionResultType]::ParameterName, 'Which format to read: auto reads each block in the format its opening line shows (SHAM, NESL, nesl, CSL, CML, the replacer format, aider''s SEARCH/REPLACE, apply_patch, unified diffs); a format name reads only that one')
            [CompletionResult]::new('--exec', '--exec', [CompletionResultType]::ParameterName, 'Policy for `exec` blocks: ask on a terminal, allow, or deny. Default: ask on a terminal, deny otherwise')
            [CompletionResult]::new('--debounce', '--debounce', [CompletionResultType]::ParameterName, 'Milliseconds the file must stay unchanged before it is read')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--copy', '--copy', [CompletionResultType]::ParameterName, 'Put each batch''s llm report on the clipboard (OSC 52 to the terminal when no display server is reachable). Also on with config `clipboard.copy: true`')
            [CompletionResult]::new('--prepend', '--prepend', [CompletionResultType]::ParameterName, 'Write each batch''s summary at the top of the watched file, as the original listener did')
            [CompletionResult]::new('--no-verify', '--no-verify', [CompletionResultType]::ParameterName, 'Do not run the pre-commit, commit-msg and post-commit hooks')
            [CompletionResult]::new('--poll', '--poll', [CompletionResultType]::ParameterName, 'Check the file by polling only, without OS notifications (for network file systems)')
            [CompletionResult]::new('--once', '--once', [CompletionResultType]::ParameterName, 'Apply what is new once and exit, without watching')
            [CompletionResult]::new('--skip-existing', '--skip-existing', [CompletionResultType]::ParameterName, 'Treat the blocks already in the file as applied, without applying them')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;mcp' {
            [CompletionResult]::new('--exec', '--exec', [CompletionResultType]::ParameterName, 'Policy for `exec` blocks: ask, allow, or deny. Default: config `exec`, else ask (without a terminal only approved and read-only commands run)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Time limit per exec block without its own `timeout` (`30`, `500ms`, `2m`). Default: config `timeout`, else 30s')
            [CompletionResult]::new('--max-output', '--max-output', [CompletionResultType]::ParameterName, 'Output cap per stream of an exec block (`1048576`, `512k`, `10MiB`). Default: config `max_output`, else 10MiB')
            [CompletionResult]::new('--total-timeout', '--total-timeout', [CompletionResultType]::ParameterName, 'Time limit for all exec blocks of the reply together. Default: config `total_timeout`, else none')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The agent that wrote the reply, as the Git AI Standard names it (claude, cursor, gemini, codex, …), for the authorship log in refs/notes/ai. Default: config provenance.agent, the MCP client''s name, else git-clada')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model that wrote the reply. Default: config provenance.model, else unknown')
            [CompletionResult]::new('--conversation', '--conversation', [CompletionResultType]::ParameterName, 'The agent''s conversation id, behind the log''s session id. Default: the MCP session (Clada-Session), else the reply''s blob id')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session id in the `Clada-Session` trailer of this server''s commits (default: a new `mcp-…` id per server; `git clada log` shows it, `git clada squash --mode session` collapses a session''s commits)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--no-git', '--no-git', [CompletionResultType]::ParameterName, 'Serve a plain folder (the current one, or -C DIR) without git: nothing is committed, and undo, redo, status, log and show are not available')
            [CompletionResult]::new('--no-verify', '--no-verify', [CompletionResultType]::ParameterName, 'Do not run the pre-commit, commit-msg and post-commit hooks on the AI commits')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;prompt' {
            [CompletionResult]::new('--dialect', '--dialect', [CompletionResultType]::ParameterName, 'The block spelling to teach')
            [CompletionResult]::new('--actions', '--actions', [CompletionResultType]::ParameterName, 'Only these actions (comma-separated), e.g. without exec')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;config' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--trust', '--trust', [CompletionResultType]::ParameterName, 'Trust the repository''s `.clada.yml` as it is now, so the commands and looser settings it sets apply; also imports the commands of an old `.clada/allowed-commands.json` into your approvals (read both first)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;context' {
            [CompletionResult]::new('--map-limit', '--map-limit', [CompletionResultType]::ParameterName, 'At most this many files in the map')
            [CompletionResult]::new('--dialect', '--dialect', [CompletionResultType]::ParameterName, 'The block spelling the instructions teach')
            [CompletionResult]::new('--actions', '--actions', [CompletionResultType]::ParameterName, 'Only these actions in the instructions (comma-separated)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--copy', '--copy', [CompletionResultType]::ParameterName, 'Copy the context to the clipboard (what happened is said on stderr)')
            [CompletionResult]::new('--no-instructions', '--no-instructions', [CompletionResultType]::ParameterName, 'Leave the instructions out (the model already has them)')
            [CompletionResult]::new('--no-map', '--no-map', [CompletionResultType]::ParameterName, 'Leave the repository map out')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;hooks' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Install the hooks, and share the AI attribution logs (refs/notes/ai) with every remote: a plain `git push` also pushes them (never forced, asking for no credentials), a plain `git fetch`/`git pull` brings the remote''s into refs/notes/remotes/<remote>/ai, merged at the next merge, checkout or rewrite, or when git-clada reads them. A remote added later is shared once you run this again')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Remove the hooks, keeping any other content of the hook files, and the fetch refspecs that share the logs')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Run the repository''s pre-commit and commit-msg hooks and hooks.after in the sandbox an AI commit runs them in, on the current index (nothing is committed; a fixer may rewrite files, as with git commit), and print what failed and the configuration line that would allow it')
            [CompletionResult]::new('prepare', 'prepare', [CompletionResultType]::ParameterValue, 'Fill git-clada''s own hook caches once, with network, in the sandbox (pre-commit install-hooks for a .pre-commit-config.yaml)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'git-clada;hooks;install' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--no-share', '--no-share', [CompletionResultType]::ParameterName, 'Leave sharing out (and stop it where an earlier install set it up)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;hooks;uninstall' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;hooks;check' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;hooks;prepare' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;hooks;help' {
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Install the hooks, and share the AI attribution logs (refs/notes/ai) with every remote: a plain `git push` also pushes them (never forced, asking for no credentials), a plain `git fetch`/`git pull` brings the remote''s into refs/notes/remotes/<remote>/ai, merged at the next merge, checkout or rewrite, or when git-clada reads them. A remote added later is shared once you run this again')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Remove the hooks, keeping any other content of the hook files, and the fetch refspecs that share the logs')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Run the repository''s pre-commit and commit-msg hooks and hooks.after in the sandbox an AI commit runs them in, on the current index (nothing is committed; a fixer may rewrite files, as with git commit), and print what failed and the configuration line that would allow it')
            [CompletionResult]::new('prepare', 'prepare', [CompletionResultType]::ParameterValue, 'Fill git-clada''s own hook caches once, with network, in the sandbox (pre-commit install-hooks for a .pre-commit-config.yaml)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'git-clada;hooks;help;install' {
            break
        }
        'git-clada;hooks;help;uninstall' {
            break
        }
        'git-clada;hooks;help;check' {
            break
        }
        'git-clada;hooks;help;prepare' {
            break
        }
        'git-clada;hooks;help;help' {
            break
        }
        'git-clada;agent-hook' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Add git-clada''s hooks to the agent''s settings (again: no change; your other hooks stay)')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Remove git-clada''s hooks from the agent''s settings, and only those')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'For each agent whose settings hold git-clada''s hooks: whether every event is registered, whether the agent trusts the hooks, when git-clada last heard from it in this repository, and whether git''s attribution hooks are installed')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'git-clada;agent-hook;install' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'Your own settings for every project (the default): ~/.claude/settings.json, ~/.cursor/hooks.json, ~/.gemini/settings.json, ~/.codex/hooks.json')
            [CompletionResult]::new('--project-local', '--project-local', [CompletionResultType]::ParameterName, 'Your own settings for this repository only (.claude/settings.local.json; Claude Code only)')
            [CompletionResult]::new('--shared', '--shared', [CompletionResultType]::ParameterName, 'The repository''s committed settings (.claude/settings.json, .cursor/hooks.json, .gemini/settings.json, .codex/hooks.json), guarded so teammates without git-clada are not broken')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;agent-hook;uninstall' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'Your own settings for every project (the default): ~/.claude/settings.json, ~/.cursor/hooks.json, ~/.gemini/settings.json, ~/.codex/hooks.json')
            [CompletionResult]::new('--project-local', '--project-local', [CompletionResultType]::ParameterName, 'Your own settings for this repository only (.claude/settings.local.json; Claude Code only)')
            [CompletionResult]::new('--shared', '--shared', [CompletionResultType]::ParameterName, 'The repository''s committed settings (.claude/settings.json, .cursor/hooks.json, .gemini/settings.json, .codex/hooks.json), guarded so teammates without git-clada are not broken')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;agent-hook;status' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;agent-hook;help' {
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Add git-clada''s hooks to the agent''s settings (again: no change; your other hooks stay)')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Remove git-clada''s hooks from the agent''s settings, and only those')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'For each agent whose settings hold git-clada''s hooks: whether every event is registered, whether the agent trusts the hooks, when git-clada last heard from it in this repository, and whether git''s attribution hooks are installed')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'git-clada;agent-hook;help;install' {
            break
        }
        'git-clada;agent-hook;help;uninstall' {
            break
        }
        'git-clada;agent-hook;help;status' {
            break
        }
        'git-clada;agent-hook;help;help' {
            break
        }
        'git-clada;install-man' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Directory that receives git-clada.1 and git-clada-<command>.1 (a `man1` directory)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;demo' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Run as if git-clada was started in DIR instead of the current directory (like `git -C`)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown for `prompt`)')
            [CompletionResult]::new('--keep', '--keep', [CompletionResultType]::ParameterName, 'Keep the scratch repository (its path is printed) instead of deleting it')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen without changing any file, ref or the index')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'git-clada;help' {
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Apply the action blocks of an LLM reply and commit the result as one AI commit')
            [CompletionResult]::new('commit', 'commit', [CompletionResultType]::ParameterValue, 'Commit the AI''s changes that an apply left pending, as their AI commit')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Parse and validate replies without changing anything; exit 1 on any error. With --staged: refuse staged content that holds leftover block markers')
            [CompletionResult]::new('parse', 'parse', [CompletionResultType]::ParameterValue, 'Print the raw block parse result of a reply as JSON in the reference shape')
            [CompletionResult]::new('undo', 'undo', [CompletionResultType]::ParameterValue, 'Take back the last clada operation on this branch; repeated, the one before it')
            [CompletionResult]::new('redo', 'redo', [CompletionResultType]::ParameterValue, 'Re-apply what the last `git clada undo` took back, if nothing moved since')
            [CompletionResult]::new('squash', 'squash', [CompletionResultType]::ParameterValue, 'Collapse runs of AI commits into one commit each')
            [CompletionResult]::new('step-back', 'step-back', [CompletionResultType]::ParameterValue, 'Move the worktree one commit back, parking uncommitted work first')
            [CompletionResult]::new('step-forward', 'step-forward', [CompletionResultType]::ParameterValue, 'Move the worktree one commit toward the tip step-back started from')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Say where you are: the branch, whether you are stepped back (and how far), and the last clada operation that undo would take back')
            [CompletionResult]::new('repair-index', 'repair-index', [CompletionResultType]::ParameterValue, 'Repair the index''s cache-tree if an earlier git-clada wrote it wrong')
            [CompletionResult]::new('log', 'log', [CompletionResultType]::ParameterValue, 'List git-clada commits on the current branch: short hash, age, subject, blocks ok/failed')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show the reply an AI commit was made from and its result report')
            [CompletionResult]::new('blame', 'blame', [CompletionResultType]::ParameterValue, 'Show who wrote each line of a file: the last commit that changed it and whether an AI wrote it')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Count the lines of a range by who wrote them: AI (per agent and model), human or unknown')
            [CompletionResult]::new('provenance', 'provenance', [CompletionResultType]::ParameterValue, 'Line-level AI attribution: the Git AI Standard''s authorship logs in refs/notes/ai')
            [CompletionResult]::new('watch', 'watch', [CompletionResultType]::ParameterValue, 'Watch FILE and apply each new complete block once, whenever the file changes')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve git-clada as an MCP server over stdio: the edit tool an agent calls')
            [CompletionResult]::new('prompt', 'prompt', [CompletionResultType]::ParameterValue, 'Print the instructions to give a model (system prompt or custom instructions)')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Show the effective configuration: every key, its value and where it came from (default, the repository''s `.clada.yml`, the user''s `<config dir>/clada/config.yml`, or git config)')
            [CompletionResult]::new('context', 'context', [CompletionResultType]::ParameterValue, 'Print what a model needs for its first turn: the instructions, a map of the repository, and the chosen files with line numbers')
            [CompletionResult]::new('hooks', 'hooks', [CompletionResultType]::ParameterValue, 'Install or remove git-clada''s git hooks (a pre-commit hook that refuses stray block markers; post-commit and post-rewrite hooks that keep AI line attribution through cherry-pick, amend and rebase; pre-push, post-merge and post-checkout hooks and a fetch refspec per remote that share the attribution logs with your remotes), or try the repository''s hooks in the sandbox AI commits run them in. Existing hook content is preserved; core.hooksPath is respected')
            [CompletionResult]::new('agent-hook', 'agent-hook', [CompletionResultType]::ParameterValue, 'Record an agent''s own edits: checkpoints per tool call, one AI commit per turn')
            [CompletionResult]::new('install-man', 'install-man', [CompletionResultType]::ParameterValue, 'Install the man pages, so `git clada --help` and `man git-clada` work')
            [CompletionResult]::new('demo', 'demo', [CompletionResultType]::ParameterValue, 'Create a scratch repository in a temporary directory, apply the bundled example reply, print the report and the commit, then undo it')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'git-clada;help;apply' {
            break
        }
        'git-clada;help;commit' {
            break
        }
        'git-clada;help;check' {
            break
        }
        'git-clada;help;parse' {
            break
        }
        'git-clada;help;undo' {
            break
        }
        'git-clada;help;redo' {
            break
        }
        'git-clada;help;squash' {
            break
        }
        'git-clada;help;step-back' {
            break
        }
        'git-clada;help;step-forward' {
            break
        }
        'git-clada;help;status' {
            break
        }
        'git-clada;help;repair-index' {
            break
        }
        'git-clada;help;log' {
            break
        }
        'git-clada;help;show' {
            break
        }
        'git-clada;help;blame' {
            break
        }
        'git-clada;help;stats' {
            break
        }
        'git-clada;help;provenance' {
            [CompletionResult]::new('backfill', 'backfill', [CompletionResultType]::ParameterValue, 'Write the logs of AI commits made before git-clada wrote them')
            [CompletionResult]::new('rewritten', 'rewritten', [CompletionResultType]::ParameterValue, 'For git''s post-rewrite hook (installed by `git clada hooks install`): carry the logs of rewritten commits to their new ids, reading git''s `<old> <new>` lines on standard input. Never fails the rewrite: problems are printed and the exit status is 0')
            [CompletionResult]::new('post-commit', 'post-commit', [CompletionResultType]::ParameterValue, 'For git''s post-commit hook: after a cherry-pick, a merge --squash or a reset --soft, carry the logs of the commits the new one replaces, where git''s evidence names them; and write the log of a commit holding lines an agent''s open checkpoints attribute. Never fails: problems are printed and the exit status is 0')
            [CompletionResult]::new('pre-push', 'pre-push', [CompletionResultType]::ParameterValue, 'For git''s pre-push hook: push refs/notes/ai to REMOTE where its logs are shared, after merging what it has (fetching, merging and pushing again when another clone pushed first). Never asks for credentials and never fails the push: a problem is one line')
            [CompletionResult]::new('fetched', 'fetched', [CompletionResultType]::ParameterValue, 'For git''s post-merge and post-checkout hooks: merge the logs fetched from the remotes (refs/notes/remotes/<remote>/ai) into refs/notes/ai. Never fails')
            break
        }
        'git-clada;help;provenance;backfill' {
            break
        }
        'git-clada;help;provenance;rewritten' {
            break
        }
        'git-clada;help;provenance;post-commit' {
            break
        }
        'git-clada;help;provenance;pre-push' {
            break
        }
        'git-clada;help;provenance;fetched' {
            break
        }
        'git-clada;help;watch' {
            break
        }
        'git-clada;help;mcp' {
            break
        }
        'git-clada;help;prompt' {
            break
        }
        'git-clada;help;config' {
            break
        }
        'git-clada;help;context' {
            break
        }
        'git-clada;help;hooks' {
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Install the hooks, and share the AI attribution logs (refs/notes/ai) with every remote: a plain `git push` also pushes them (never forced, asking for no credentials), a plain `git fetch`/`git pull` brings the remote''s into refs/notes/remotes/<remote>/ai, merged at the next merge, checkout or rewrite, or when git-clada reads them. A remote added later is shared once you run this again')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Remove the hooks, keeping any other content of the hook files, and the fetch refspecs that share the logs')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Run the repository''s pre-commit and commit-msg hooks and hooks.after in the sandbox an AI commit runs them in, on the current index (nothing is committed; a fixer may rewrite files, as with git commit), and print what failed and the configuration line that would allow it')
            [CompletionResult]::new('prepare', 'prepare', [CompletionResultType]::ParameterValue, 'Fill git-clada''s own hook caches once, with network, in the sandbox (pre-commit install-hooks for a .pre-commit-config.yaml)')
            break
        }
        'git-clada;help;hooks;install' {
            break
        }
        'git-clada;help;hooks;uninstall' {
            break
        }
        'git-clada;help;hooks;check' {
            break
        }
        'git-clada;help;hooks;prepare' {
            break
        }
        'git-clada;help;agent-hook' {
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Add git-clada''s hooks to the agent''s settings (again: no change; your other hooks stay)')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Remove git-clada''s hooks from the agent''s settings, and only those')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'For each agent whose settings hold git-clada''s hooks: whether every event is registered, whether the agent trusts the hooks, when git-clada last heard from it in this repository, and whether git''s attribution hooks are installed')
            break
        }
        'git-clada;help;agent-hook;install' {
            break
        }
        'git-clada;help;agent-hook;uninstall' {
            break
        }
        'git-clada;help;agent-hook;status' {
            break
        }
        'git-clada;help;install-man' {
            break
        }
        'git-clada;help;demo' {
            break
        }
        'git-clada;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
