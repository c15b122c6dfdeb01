# SPDX-License-Identifier: Apache-2.0
# bash completion for boxcert and boxcert-verify. The commands, flags and --format values
# are read from the program's own --help, the profile names (with their versions) from
# `policy list`, so the completion is always that of the installed program.

_boxcert_help_flags() { # PROG CMD: the long flags CMD's --help lists
  "$1" "$2" --help 2>/dev/null | grep -oE -- '(^|[ [|,])--[a-z][a-z0-9-]*' | sed 's/^[^-]*//' | sort -u
}

_boxcert() {
  local prog=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} prev=
  local cmd= i
  [ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
      -*) ;;
      *) cmd=${COMP_WORDS[i]}; break ;;
    esac
  done
  local commands
  commands=$("$prog" --help 2>/dev/null | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')
  if [ -z "$cmd" ]; then
    if [[ $cur == -* ]]; then
      COMPREPLY=($(compgen -W "--help --version --quiet -q -h" -- "$cur"))
    else
      COMPREPLY=($(compgen -W "$commands help" -- "$cur"))
    fi
    return 0
  fi
  case $prev in
    --policy)
      COMPREPLY=($(compgen -W "$("$prog" policy list 2>/dev/null)" -- "$cur") $(compgen -f -- "$cur"))
      return 0 ;;
    --format)
      local values
      values=$("$prog" "$cmd" --help 2>/dev/null | grep -oE -- '--format [a-z|]+' | head -n 1 | sed 's/^--format //; s/|/ /g')
      COMPREPLY=($(compgen -W "$values" -- "$cur"))
      return 0 ;;
    --alg) COMPREPLY=($(compgen -W "ed25519 ecdsa-p256" -- "$cur")); return 0 ;;
    --certs | --repo | --evidence-out | --tasks | --source-repo)
      COMPREPLY=($(compgen -d -- "$cur")); return 0 ;;
    --key | --signing-key | --verify-key | --out | --output | --requested | --expect | --seen | \
      --from-json)
      COMPREPLY=($(compgen -f -- "$cur")); return 0 ;;
    --engine | --nonce | --ttl | --at | --threshold | --jobs | --label | --rev | --range | \
      --remote | --max-size | --expect-* | --source-rev)
      return 0 ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(_boxcert_help_flags "$prog" "$cmd") -h -q" -- "$cur"))
    return 0
  fi
  local sub= j
  for ((j = i + 1; j < COMP_CWORD; j++)); do
    [[ ${COMP_WORDS[j]} == -* ]] || { sub=${COMP_WORDS[j]}; break; }
  done
  case $cmd in
    help) [ "$COMP_CWORD" -eq $((i + 1)) ] && COMPREPLY=($(compgen -W "$commands" -- "$cur")) ;;
    ledger) [ -z "$sub" ] && COMPREPLY=($(compgen -W "add show verify push fetch" -- "$cur")) ||
      COMPREPLY=($(compgen -f -- "$cur")) ;;
    policy)
      case $sub in
        "") COMPREPLY=($(compgen -W "check show list" -- "$cur")) ;;
        show) COMPREPLY=($(compgen -W "$("$prog" policy list 2>/dev/null)" -- "$cur")) ;;
        check) COMPREPLY=($(compgen -f -- "$cur")) ;;
      esac ;;
    schema) [ -z "$sub" ] && COMPREPLY=($(compgen -W "list $("$prog" schema list 2>/dev/null)" -- "$cur")) ;;
    version | keygen) ;;
    inspect | collect)
      COMPREPLY=($(compgen -W "$(docker ps --format '{{.Names}}' 2>/dev/null)" -- "$cur")) ;;
    *) COMPREPLY=($(compgen -f -- "$cur")) ;;
  esac
  return 0
}
complete -o filenames -F _boxcert boxcert boxcert-verify
