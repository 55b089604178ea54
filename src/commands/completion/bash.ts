import { type CommandSpec, flatten } from './tree.js';

/** A word list safe inside a double-quoted bash string (names and choices are ours: no quotes in them). */
const words = (list: readonly string[]) => list.join(' ');

/**
 * For a value that names a folder or a file: the names offered are paths (a folder gets its slash, a
 * space in a name is quoted), and nothing else is, not even when none matches, where `-o default`
 * would have bash offer every file (`-o a<Tab>` gave a.wav). compopt is bash's: zsh's bashcompinit
 * has none, and goes without.
 */
const PATHS_ONLY = 'compopt -o filenames +o default +o bashdefault 2>/dev/null';

/**
 * For a value that is no path (a number, a duration, a port, a shard; a job id or a file name on the
 * service): nothing is offered. An empty reply alone would have bash fall back to file names (`-c
 * 1<Tab>` gave `-c 1.wav`, `download <Tab>` the files here).
 */
const NOTHING = 'compopt +o default +o bashdefault 2>/dev/null; COMPREPLY=()';

/**
 * The shell function both bash and zsh run: it follows the typed words down the command tree and
 * says what to offer in `offer`: `words` (then in COMPREPLY), `files`, `folders` or `nothing`, for
 * `cur`, the word or the value being typed; `before` is what precedes a value in its own word
 * (`--gender=` where the shell did not split there: zsh always, bash never by default). Each shell
 * then offers paths its own way (bash's compgen splits a name with a space in two). Subcommands and a
 * first argument's allowed values are offered only before any other argument (`config set
 * concurrency <Tab>` is a value, not another key). After `help`, the words follow the tree the same
 * way from its root, and the subcommands of the command named so far are offered (`help jobs <Tab>`).
 */
export function offerFunction(root: CommandSpec, program: string): string {
  const fn = functionName(program);
  const all = flatten(root);
  const transitions = all.flatMap((spec) =>
    spec.subcommands.map(
      (sub) => `    "${spec.path.join(' ')}|${sub.path[sub.path.length - 1]}") to="${sub.path.join(' ')}" ;;`,
    ),
  );
  const naming = all.filter((spec) => spec.namesCommands).map((spec) => `"${spec.path.join(' ')}"`);
  const namedSubs = all
    .filter((spec) => spec.path.length > 0 && spec.subcommands.length > 0)
    .map(
      (spec) =>
        `      "${spec.path.join(' ')}") subs="${words(spec.subcommands.map((sub) => sub.path[sub.path.length - 1] as string))}" ;;`,
    );
  const valueOptions = new Set(
    all.flatMap((spec) => spec.options.filter((o) => o.takesValue).flatMap((o) => o.names)),
  );
  const perCommand = all.map((spec) => {
    const subs = spec.subcommands.map((sub) => sub.path[sub.path.length - 1] as string);
    return `    "${spec.path.join(' ')}") subs="${words([...subs, ...spec.argumentChoices])}"; opts="${words(spec.options.flatMap((o) => o.names))}"; files=${spec.takesFiles ? 1 : 0} ;;`;
  });
  const values = all.flatMap((spec) =>
    spec.options
      .filter((o) => o.takesValue)
      .map((o) => {
        const pattern = o.names.map((name) => `"${spec.path.join(' ')}|${name}"`).join('|');
        const reply = o.choices
          ? `offer=words; COMPREPLY=($(compgen -W "${words(o.choices)}" -- "$cur"))`
          : `offer=${o.valueKind === 'dir' ? 'folders' : o.valueKind === 'file' ? 'files' : 'nothing'}`;
        return `    ${pattern}) ${reply}; return 0 ;;`;
      }),
  );
  // `cmd`, not `path`: zsh ties a variable of that name to PATH.
  return `${fn}_child() {
  case "$1|$2" in
${transitions.join('\n')}
    *) return 1 ;;
  esac
}
${fn}_offer() {
  local prev cmd="" i w to subs="" opts="" files=0 args=0 naming=0 named=""
  cur="\${COMP_WORDS[COMP_CWORD]}"
  before=""
  offer=nothing
  COMPREPLY=()
  prev=""
  if (( COMP_CWORD > 0 )); then prev="\${COMP_WORDS[COMP_CWORD-1]}"; fi
  for (( i = 1; i < COMP_CWORD; i++ )); do
    w="\${COMP_WORDS[i]}"
    # bash splits --gender=m at the = (COMP_WORDBREAKS): an option's value follows it there.
    case "$w" in
      ${[...valueOptions].join('|')}) if [[ "\${COMP_WORDS[i+1]}" == "=" ]]; then (( i += 2 )); else (( i++ )); fi; continue ;;
      -*) if [[ "\${COMP_WORDS[i+1]}" == "=" ]]; then (( i += 2 )); fi; continue ;;
    esac
    if (( naming && args == 0 )); then
      if ${fn}_child "$named" "$w"; then named="$to"; continue; fi
    elif ${fn}_child "$cmd" "$w"; then
      cmd="$to"
${
  naming.length > 0
    ? `      case "$cmd" in ${naming.join('|')}) naming=1 ;; esac
`
    : ''
}      continue
    fi
    args=$((args + 1))
  done
  if [[ "$cur" == "=" ]]; then
    cur=""
  elif [[ "$prev" == "=" && "$cur" != -* ]] && (( COMP_CWORD > 1 )); then
    prev="\${COMP_WORDS[COMP_CWORD-2]}"
  elif [[ "$cur" == --*=* ]]; then
    before="\${cur%%=*}="
    prev="\${cur%%=*}"
    cur="\${cur#*=}"
  fi
  case "$cmd|$prev" in
${values.join('\n')}
  esac
  # A word of its own that is not the value of the option before it.
  before=""
  case "$cmd" in
${perCommand.join('\n')}
  esac
  if [[ -n "$named" ]]; then
    case "$named" in
${namedSubs.join('\n')}
      *) subs="" ;;
    esac
  fi
  if [[ "$cur" == -* ]]; then
    offer=words; COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  elif [[ -n "$subs" ]] && (( args == 0 )); then
    offer=words; COMPREPLY=($(compgen -W "$subs" -- "$cur"))
    # A word that begins no subcommand names no file either, unless the command takes files.
    if (( \${#COMPREPLY[@]} == 0 && files )); then offer=files; fi
  elif (( files )); then
    offer=files
  fi
  return 0
}
`;
}

/** The name of the completion function for `program`, a shell word. */
export const functionName = (program: string) => `_${program.replace(/\W/g, '_')}_complete`;

/** bash's completion: the shared function, and paths offered through compgen, one name a line. */
export function bashScript(root: CommandSpec, program: string): string {
  const fn = functionName(program);
  return `# bash completion for ${program}, generated by \`${program} completion bash\`.
# Load it now:        source <(${program} completion bash)
# Or for every shell: ${program} completion bash > ~/.local/share/bash-completion/completions/${program}
${offerFunction(root, program)}${fn}() {
  local cur before offer kind=-f name
  ${fn}_offer
  case "$offer" in
    # None begins with the word: nothing, where an empty reply would have bash offer the files here.
    words) if (( \${#COMPREPLY[@]} == 0 )); then ${NOTHING}; fi ;;
    files|folders)
      ${PATHS_ONLY}
      if [[ "$offer" == folders ]]; then kind=-d; fi
      # A name a line, whole: \`COMPREPLY=($(compgen ...))\` split it at a space and globbed a *
      # in it (and mapfile is not in bash 3.2).
      COMPREPLY=()
      while IFS= read -r name; do COMPREPLY+=("$name"); done < <(compgen "$kind" -- "$cur") ;;
    nothing) ${NOTHING} ;;
  esac
  # The word holds the option too (\`=\` not in COMP_WORDBREAKS): each reply replaces all of it.
  if [[ -n "$before" ]]; then COMPREPLY=("\${COMPREPLY[@]/#/$before}"); fi
  return 0
}
complete -o default -o bashdefault -F ${fn} ${program}
`;
}
