#!/usr/bin/env bash
# `cmake --install` of a built tree puts the programs, their shell completions and their man
# pages in place, and those work:
#
#   install_test.sh BUILD_DIR
#
#   1. bin/pai-compile, bin/pai-launch, share/bash-completion/completions/pai-{compile,launch},
#      share/zsh/site-functions/_pai-{compile,launch}, share/man/man1/pai-{compile,launch}.1.gz
#      (gzip -9n: no name or time stamp inside), share/doc/pai/copyright and changelog.gz;
#   2. bash: sourcing a completion registers it (complete -p), and completing
#      `pai-launch st<TAB>` (COMP_WORDS/COMP_CWORD and the function) offers status, stop and
#      start; `pai-launch run --s<TAB>` offers --slurm; `pai-compile --target s<TAB>` slurm;
#      `pai-launch run --plan PATH<TAB>` the files there;
#   3. every option that `PROGRAM [COMMAND] --help` lists is completed by bash for that
#      command, is in the zsh completion and in the man page; zsh parses the zsh completions
#      and compinit binds them to their programs;
#   4. groff and man render each man page without a warning;
#   5. an interactive zsh (in a tmux pane of its own server) completes what is typed with TAB:
#      `pai-launch che` to `check`, `pai-compile --tar` to `--target`, `--target sl` to
#      `slurm`, and `pai-launch run --plan job` to a file.
# Exit status: 0 passed; 1 failed (what differs is printed); 2 usage.
set -euo pipefail

(($# == 1)) || { echo "usage: install_test.sh BUILD_DIR" >&2; exit 2; }
build=$(realpath "$1")
prefix=$(mktemp -d "${TMPDIR:-/tmp}/pai-install-test-XXXXXX")
tmux_server=pai-install-test-$$
trap 'tmux -L "$tmux_server" kill-server 2>/dev/null || true; rm -rf -- "$prefix"' EXIT

failures=0
say() { printf 'install_test: %s\n' "$*" >&2; }
fail() {
  say "FAILED: $*"
  failures=$((failures + 1))
}

cmake --install "$build" --prefix "$prefix" >/dev/null || { say "FAILED: cmake --install"; exit 1; }

# --- 1. Everything in its place.
for file in bin/pai-compile bin/pai-launch \
  share/bash-completion/completions/pai-compile share/bash-completion/completions/pai-launch \
  share/zsh/site-functions/_pai-compile share/zsh/site-functions/_pai-launch \
  share/man/man1/pai-compile.1.gz share/man/man1/pai-launch.1.gz share/doc/pai/copyright \
  share/doc/pai/changelog.gz; do
  [[ -s $prefix/$file ]] || fail "$file is not installed"
done
for file in share/man/man1/pai-compile.1.gz share/man/man1/pai-launch.1.gz \
  share/doc/pai/changelog.gz; do
  # gzip -9n: the header's name flag (byte 4, bit 3) and time stamp (bytes 5-8) are unset.
  header=$(od -An -tx1 -N8 "$prefix/$file" | tr -d ' \n')
  [[ $header == 1f8b08[0-7]?00000000 && $((0x${header:6:2} & 8)) -eq 0 ]] ||
    fail "$file is not gzip -n (header $header)"
done
((failures == 0)) || exit 1
say "1. programs, completions and man pages installed"

bash_dir=$prefix/share/bash-completion/completions
zsh_dir=$prefix/share/zsh/site-functions
man_dir=$prefix/share/man/man1

# What bash completes for the words $2... (the last one is being typed), with the completion
# of program $1 loaded: one candidate per line.
complete_words() {
  local program=$1
  shift
  # shellcheck disable=SC2016 # expanded by the inner bash
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    func=$(complete -p "$1" | sed -n "s/.*-F \([^ ]*\) .*/\1/p")
    "$func" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]:-}"
    printf "%s\n" "${COMPREPLY[@]}"' bash "$bash_dir/$program" "$program" "$@"
}

# --- 2. bash loads the completions and completes subcommands, options and choices.
for program in pai-compile pai-launch; do
  registered=$(bash -c 'source "$1"; complete -p "$2"' bash "$bash_dir/$program" "$program") ||
    fail "sourcing the bash completion of $program registers nothing"
  [[ $registered == "complete -F _${program//-/_} $program" ]] ||
    fail "bash registered: $registered"
done
got=$(complete_words pai-launch pai-launch st | sort | tr '\n' ' ')
[[ $got == "start status stop " ]] || fail "pai-launch st<TAB> offers: $got"
got=$(complete_words pai-launch pai-launch run --s | tr '\n' ' ')
[[ $got == "--slurm " ]] || fail "pai-launch run --s<TAB> offers: $got"
got=$(complete_words pai-compile pai-compile job.yaml --target s | tr '\n' ' ')
[[ $got == "slurm " ]] || fail "pai-compile --target s<TAB> offers: $got"
touch "$prefix/job-plan.json"
got=$(complete_words pai-launch pai-launch run --plan "$prefix/job-p" | tr '\n' ' ')
[[ $got == "$prefix/job-plan.json " ]] || fail "pai-launch run --plan PATH<TAB> offers: $got"
((failures == 0)) && say "2. bash completes pai-launch st<TAB> to start status stop"

# --- 3. Every option of --help is completed and documented.
# The options `PROGRAM WORDS... --help` lists, one per line: -o, --out, ...
help_options() {
  "$@" --help | grep -oE '^  (-[A-Za-z0-9],)?--?[A-Za-z0-9][A-Za-z0-9-]*' | tr ',' '\n' | tr -d ' ' |
    sort -u
}
commands() {
  "$prefix/bin/pai-launch" --help | sed -n '/^Subcommands:/,/^$/p' | awk 'NR > 1 && NF {print $1}'
}
checked=0
check_command() {
  local program=$1 command=${2:-} option completed
  local words=("$prefix/bin/$program")
  [[ -n $command ]] && words+=("$command")
  completed=$(complete_words "$program" "$program" ${command:+"$command"} - | sort -u)
  while read -r option; do
    [[ -n $option ]] || continue
    checked=$((checked + 1))
    grep -qxF -- "$option" <<<"$completed" ||
      fail "bash does not complete $program $command $option"
    grep -qF -- "$option" "$zsh_dir/_$program" || fail "zsh does not complete $program $option"
    zcat "$man_dir/$program.1.gz" | grep -qF -- "${option//-/\\-}" ||
      fail "the man page of $program does not document $option"
  done < <(help_options "${words[@]}")
}
check_command pai-compile
while read -r command; do
  # rsh and torchrun parse ssh's and torchrun's options themselves: no CLI11 --help.
  [[ $command == rsh || $command == torchrun ]] && continue
  check_command pai-launch "$command"
done < <(commands)
((checked > 40)) || fail "only $checked options were found in --help: is its format still CLI11's?"
for program in pai-compile pai-launch; do
  zsh -n "$zsh_dir/_$program" || fail "zsh cannot parse _$program"
done
# compinit finds them on fpath and binds each to its command (#compdef).
# shellcheck disable=SC2016 # expanded by zsh
bound=$(zsh -f -c 'fpath=("$1" $fpath); autoload -U compinit; compinit -u -d "$2"
  print -r -- "${_comps[pai-compile]} ${_comps[pai-launch]}"' zsh "$zsh_dir" "$prefix/.zcompdump")
[[ $bound == "_pai-compile _pai-launch" ]] || fail "zsh's compinit bound: $bound"
((failures == 0)) && say "3. the $checked options of --help are in the completions and man pages"

# --- 4. The man pages render without warnings.
for page in "$man_dir"/pai-compile.1.gz "$man_dir"/pai-launch.1.gz; do
  warnings=$(zcat "$page" | groff -ww -z -man 2>&1) || fail "groff failed on $page"
  [[ -z $warnings ]] || fail "groff warns about $page: $warnings"
  warnings=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null) || fail "man failed on $page"
  [[ -z $warnings ]] || fail "man warns about $page: $warnings"
  MANWIDTH=80 man -l "$page" 2>/dev/null | grep -q '^OPTIONS' || fail "$page has no OPTIONS"
done
((failures == 0)) && say "4. the man pages render without warnings"

# --- 5. zsh, driven as a user drives it: keys typed into an interactive shell in a pane.
# Prints the pane's last prompt line once it reads $1 (within 5 s; tmux drops trailing
# blanks); else prints it and fails. Lists zsh shows under the prompt are not looked at.
pane_shows() {
  local deadline=$((SECONDS + 5)) line
  while :; do
    line=$(tmux -L "$tmux_server" capture-pane -p -t zsh | grep '^zsh>' | tail -n 1)
    if [[ $line == "$1" ]]; then
      printf '%s' "$line"
      return 0
    fi
    ((SECONDS < deadline)) || break
    sleep 0.1
  done
  printf '%s' "$line"
  return 1
}
# Types $1 then TAB and expects the line to read $2; clears the line after.
zsh_completes() {
  local typed=$1 want=$2 got
  tmux -L "$tmux_server" send-keys -t zsh -l "$typed"
  tmux -L "$tmux_server" send-keys -t zsh Tab
  got=$(pane_shows "$want") || fail "zsh completed \"$typed\" to \"$got\", expected \"$want\""
  tmux -L "$tmux_server" send-keys -t zsh C-u
}
if command -v tmux >/dev/null; then
  printf '%s\n' "fpath=(\"$zsh_dir\" \$fpath)" "path=(\"$prefix/bin\" \$path)" \
    "autoload -U compinit && compinit -u -d \"$prefix/.zcompdump\"" "PS1='zsh> '" \
    >"$prefix/.zshrc"
  mkdir -p "$prefix/plans" && touch "$prefix/plans/job-plan.json"
  tmux -L "$tmux_server" -f /dev/null new-session -d -s zsh -x 160 -y 20 \
    "cd '$prefix/plans' && env -i HOME='$prefix' ZDOTDIR='$prefix' TERM=xterm zsh -i"
  if pane_shows 'zsh>' >/dev/null; then
    # Completed words end with a blank that tmux does not show: each case clears its line.
    zsh_completes "pai-launch che" "zsh> pai-launch check"
    zsh_completes "pai-compile --tar" "zsh> pai-compile --target"
    zsh_completes "pai-compile --target sl" "zsh> pai-compile --target slurm"
    zsh_completes "pai-launch run --plan job" "zsh> pai-launch run --plan job-plan.json"
    ((failures == 0)) && say "5. an interactive zsh completes subcommands, options, choices and files"
  else
    fail "zsh did not start in tmux"
  fi
else
  say "5. skipped: tmux is not installed"
fi

((failures == 0)) || exit 1
