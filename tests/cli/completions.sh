#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The bash and zsh completions: commands, flags (read from --help), --format values,
# profile names with their versions, subcommands, files; for boxcert and boxcert-verify.
. "$(dirname "$0")/../lib/testlib.sh"
C=$BOXCERT_SOURCE_DIR/completions
V=$BOXCERT_BIN/boxcert-verify
cd "$T" && : >cert.intoto.json

bashc() { # bashc WORD...: the completions of the last word, sorted, one line
  bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _boxcert
           printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' _ "$C/boxcert.bash" "$@"
}
ok "bash: the completion loads" bash -c ". '$C/boxcert.bash' && complete -p boxcert boxcert-verify"
like <(bashc "$BOXCERT" "") '(^| )collect( |$)' "bash: commands"
like <(bashc "$BOXCERT" "") '(^| )help( |$)' "bash: help"
unlike <(bashc "$V" "") '(^| )collect( |$)' "bash: boxcert-verify has no collect"
like <(bashc "$V" "") '(^| )verify( |$)' "bash: boxcert-verify has verify"
is "$(bashc "$BOXCERT" co)" "collect " "bash: a prefix"
like <(bashc "$BOXCERT" verify --ex) '--expect-image' "bash: verify's flags from its --help"
like <(bashc "$BOXCERT" verify --ex) '--expect-container-name' "bash: ... every one"
like <(bashc "$BOXCERT" collect --) '--requested' "bash: collect's flags"
is "$(bashc "$BOXCERT" verify --format "")" "github json junit markdown sarif text " "bash: --format values"
is "$(bashc "$BOXCERT" audit --format h)" "html " "bash: audit's own --format values"
like <(bashc "$BOXCERT" verify --policy str) 'strict@1' "bash: profiles with versions"
like <(bashc "$BOXCERT" verify --policy str) '(^| )strict( |$)' "bash: ... and without"
is "$(bashc "$BOXCERT" policy "")" "check list show " "bash: policy's subcommands"
like <(bashc "$BOXCERT" policy show g) 'gvisor@' "bash: policy show PROFILE"
is "$(bashc "$BOXCERT" ledger v)" "verify " "bash: ledger's subcommands"
is "$(bashc "$BOXCERT" verify cert)" "cert.intoto.json " "bash: files"
is "$(bashc "$BOXCERT" help sh)" "show " "bash: help COMMAND"
like <(bashc "$BOXCERT" schema "") '(^| )requested( |$)' "bash: schema names"

if command -v zsh >/dev/null; then
  zshc() { # zshc WORD...: what _boxcert offers for the last word (compadd and _files stubbed)
    zsh -f -c 'compadd() { [[ $1 == -- ]] && shift; print -l -- "$@"; }
      _files() { print -- "(files)"; }
      fpath=("$1" $fpath); autoload -Uz _boxcert; shift
      words=("$@"); CURRENT=$#; _boxcert' _ "$C" "$@" | sort | tr '\n' ' '
  }
  ok "zsh: the completion parses" zsh -n "$C/_boxcert"
  like <(zshc "$BOXCERT" "") '(^| )audit( |$)' "zsh: commands"
  unlike <(zshc "$V" "") '(^| )audit( |$)' "zsh: boxcert-verify has no audit"
  like <(zshc "$BOXCERT" verify --) '--expect-label' "zsh: verify's flags"
  like <(zshc "$BOXCERT" verify --policy "") 'gvisor@2' "zsh: profiles with versions"
  like <(zshc "$BOXCERT" verify --format "") 'sarif' "zsh: --format values"
  like <(zshc "$BOXCERT" policy "") 'check' "zsh: policy's subcommands"
  like <(zshc "$BOXCERT" verify x) '\(files\)' "zsh: files"
else
  skip_one "zsh: not installed (scripts/deps.sh installs it)"
fi
done_testing
