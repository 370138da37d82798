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

	local commands="record stop pause resume snapshot status list start end events nodes topics top
		check node-summary topic-summary trace-point-summary help"
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
	--snapshot-size | --snapshot-on | --snapshot-filter | --subbuffer-size-kernel | \
	--init-retry-num | --node | --topic | --delay | -n | --iterations)
		return ;;
	--sort)
		COMPREPLY=($(compgen -W "cpu rate mean p99 max node symbol" -- "$cur"))
		return ;;
	esac

	# record's list options (as ros2 trace's nargs='*'): the words after
	# -u, --context, -k or --syscall, up to the next option, are names
	if [[ $cmd == record && $cur != -* ]]; then
		local i list=""
		for ((i = COMP_CWORD - 1; i > 0; i--)); do
			[[ ${COMP_WORDS[i]} == -* ]] || continue
			list=${COMP_WORDS[i]}
			break
		done
		case $list in
		-u | --ust)
			COMPREPLY=($(compgen -W "ros2:* ros2_caret:* ros2:callback_start
				ros2:callback_end ros2:rclcpp_publish ros2:rcl_publish
				ros2:rmw_take ros2_caret:dds_write
				ros2_caret:dds_bind_addr_to_stamp" -- "$cur"))
			return ;;
		--context)
			COMPREPLY=($(compgen -W "pid procname prio nice vpid tid vtid ppid
				vppid pthread_id hostname ip interruptible preemptible
				need_reschedule migratable callstack-kernel callstack-user
				cgroup_ns ipc_ns mnt_ns net_ns pid_ns user_ns uts_ns time_ns
				uid euid suid gid egid sgid vuid veuid vsuid vgid vegid vsgid
				perf:thread:instructions perf:thread:cycles
				perf:thread:cpu-cycles" -- "$cur"))
			return ;;
		-k | --kernel)
			# ros2_tracing's names.EVENTS_KERNEL
			COMPREPLY=($(compgen -W "block_rq_complete block_rq_insert
				block_rq_issue block_bio_frontmerge irq_softirq_entry
				irq_softirq_raise irq_softirq_exit irq_handler_entry
				irq_handler_exit kmem_mm_page_alloc kmem_mm_page_free
				lttng_statedump_process_state lttng_statedump_start
				lttng_statedump_end lttng_statedump_network_interface
				lttng_statedump_block_device net_dev_queue netif_receive_skb
				net_if_receive_skb power_cpu_frequency sched_switch
				sched_waking sched_pi_setprio sched_process_fork
				sched_process_exit sched_process_free sched_wakeup
				sched_migrate sched_migrate_task timer_hrtimer_start
				timer_hrtimer_cancel timer_hrtimer_expire_entry
				timer_hrtimer_expire_exit" -- "$cur"))
			return ;;
		--syscall)
			return ;;
		esac
	fi

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
			-u --ust --context -k --kernel --syscall
			--subbuffer-size-kernel -c --record-clock --init-retry-num" -- "$cur")) ;;
	snapshot)
		COMPREPLY=($(compgen -W "$common -o --output --timeout --all-hosts" -- "$cur")) ;;
	stop)
		COMPREPLY=($(compgen -W "$common -s --session-name --all-hosts" -- "$cur")) ;;
	pause | resume)
		COMPREPLY=($(compgen -W "$common -s --session-name" -- "$cur")) ;;
	status)
		COMPREPLY=($(compgen -W "$common --all-hosts --timeout" -- "$cur")) ;;
	start | end)
		COMPREPLY=($(compgen -W "$common --all-hosts" -- "$cur")) ;;
	events)
		COMPREPLY=($(compgen -W "$common --since --until --count --after --pid
			--kind" -- "$cur")) ;;
	nodes | topics)
		COMPREPLY=($(compgen -W "$common --pid" -- "$cur")) ;;
	top)
		COMPREPLY=($(compgen -W "$common --once --sort --node --topic --delay -n --all-hosts
			--iterations" -- "$cur")) ;;
	check | node-summary | topic-summary | trace-point-summary | node_summary | \
	topic_summary | trace_point_summary)
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
