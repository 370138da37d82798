# SPDX-License-Identifier: Apache-2.0
# bash completion for caretctl(1); installed as
# $(PREFIX)/share/bash-completion/completions/caretctl.
_caretctl()
{
	local cur prev words cword
	_init_completion || return

	local commands="record stop status list start end help"
	local common="--socket --json --help"
	local cmd="" i
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--socket) ((i++)) ;;
		-*) ;;
		*) cmd=${words[i]}; break ;;
		esac
	done

	case $prev in
	--socket)
		_filedir
		return ;;
	-p | --path)
		_filedir -d
		return ;;
	--pacing)
		COMPREPLY=($(compgen -W "adaptive frequency" -- "$cur"))
		return ;;
	-s | --session-name | -f | --recording-frequency | --subbuffer-size-ust | \
	--subbuffer-count | --duration | --timeout)
		return ;;
	esac

	case $cmd in
	"")
		COMPREPLY=($(compgen -W "$commands $common --version" -- "$cur")) ;;
	help)
		COMPREPLY=($(compgen -W "${commands% help}" -- "$cur")) ;;
	record)
		COMPREPLY=($(compgen -W "$common -s --session-name -p --path
			-f --recording-frequency --pacing --light --immediate
			--subbuffer-size-ust --subbuffer-count -v --verbose --duration
			--timeout -l --list" -- "$cur")) ;;
	stop)
		COMPREPLY=($(compgen -W "$common -s --session-name" -- "$cur")) ;;
	*)
		COMPREPLY=($(compgen -W "$common" -- "$cur")) ;;
	esac
}
complete -F _caretctl caretctl
