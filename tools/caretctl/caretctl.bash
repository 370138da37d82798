# SPDX-License-Identifier: Apache-2.0
# bash completion for caretctl(1); installed as
# $(PREFIX)/share/bash-completion/completions/caretctl.
_caretctl_files()
{
	if declare -F _filedir >/dev/null; then
		if [ "$1" = -d ]; then _filedir -d; else _filedir; fi
	else
		# names as file names: a directory gets its '/', and one can go
		# on into it (~/.ros/tracing/caret-...)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen "$1" -- "$cur"))
	fi
}

_caretctl()
{
	local cur prev words cword
	# bash-completion's helpers when loaded by it; plain bash otherwise.
	if declare -F _init_completion >/dev/null; then
		_init_completion || return
	else
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD - 1]}
	fi

	local commands="record stop snapshot status list start end events nodes topics check help"
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
		_caretctl_files -f
		return ;;
	-p | --path | -o | --output)
		_caretctl_files -d
		return ;;
	--pacing)
		COMPREPLY=($(compgen -W "adaptive frequency" -- "$cur"))
		return ;;
	-s | --session-name | -f | --recording-frequency | --subbuffer-size-ust | \
	--subbuffer-count | --duration | --timeout | --select-nodes | --ignore-nodes | \
	--select-topics | --ignore-topics | --set-url | --since | --until | --count | \
	--after | --pid | --kind | --rotate-size | --rotate-every | --keep | --max-size | \
	--snapshot-size | --snapshot-on | --snapshot-filter)
		return ;;
	esac

	case $cmd in
	"")
		COMPREPLY=($(compgen -W "$commands $common --version" -- "$cur")) ;;
	help)
		COMPREPLY=($(compgen -W "${commands% help}" -- "$cur")) ;;
	record)
		COMPREPLY=($(compgen -W "$common -s --session-name -p --path -o --output
			-f --recording-frequency --pacing --light --immediate
			--subbuffer-size-ust --subbuffer-count -v --verbose --duration
			--timeout -l --list -a --append --append-trace --set-url
			--all-hosts --select-nodes --ignore-nodes --select-topics
			--ignore-topics --rotate-size --rotate-every --keep
			--max-size --snapshot --snapshot-size --snapshot-on
			--snapshot-filter
			-c --record-clock" -- "$cur")) ;;
	snapshot)
		COMPREPLY=($(compgen -W "$common -o --output --timeout" -- "$cur")) ;;
	stop)
		COMPREPLY=($(compgen -W "$common -s --session-name --all-hosts" -- "$cur")) ;;
	status)
		COMPREPLY=($(compgen -W "$common --all-hosts --timeout" -- "$cur")) ;;
	start | end)
		COMPREPLY=($(compgen -W "$common --all-hosts" -- "$cur")) ;;
	events)
		COMPREPLY=($(compgen -W "$common --since --until --count --after --pid
			--kind" -- "$cur")) ;;
	nodes | topics)
		COMPREPLY=($(compgen -W "$common --pid" -- "$cur")) ;;
	check)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$common --timeout" -- "$cur"))
		else
			_caretctl_files -d
		fi ;;
	*)
		COMPREPLY=($(compgen -W "$common" -- "$cur")) ;;
	esac
}
complete -F _caretctl caretctl
