#!/usr/bin/env bash
# Copyright The kube-hpa Authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# Runs the make targets it is given in order, stopping at the first that
# fails, and prints how long each took at the end (also after a failure),
# so that the cost of a new stage of `make test` is visible in every run.
# A stage "a+b" runs targets a and b at once, each into a log of its own
# that is printed when both have ended: for stages that mostly wait (the
# e2e suites wait on sync periods and 180 s failure durations), not for
# those that keep the CPUs busy.
# A stage "bg:a" (or "bg:a+b") starts in the background and the run goes on
# with the next stage at once; its log is printed, and its time and result
# are in the table, when it has ended, after the last stage (or after a
# failure). It is for the e2e suites, which keep a CPU a quarter busy for a
# quarter of an hour: the stages that run beside them run under
# `nice -n 19`, so that the CPUs they leave idle go to compiling and the
# suites' control planes and controllers still get a CPU the moment they
# ask (a suite sees the machine it would see alone, minus a few
# milliseconds of scheduling). The stages after a background stage must not
# rebuild what it runs: its prerequisites are stages before it.
# After a failure it prints what failed in the ginkgo reports the run wrote
# (_output/<suite>/report.json, through hack/e2e-failures), just above the
# table: the end of a CI log is often all that is kept of it.

set -o nounset -o pipefail

MAKE=${MAKE:-make}
# The command the stages run under: nice while a background stage runs.
nice=()
names=() secs=() results=()
rc=0
total_start=$(date +%s)
run_marker=$(mktemp)
trap 'rm -f "${run_marker}"' EXIT

# run_group runs the targets of a "+" stage at once and fails if any did.
run_group() {
	local targets pids=() logs=() i failed=0
	IFS=+ read -ra targets <<<"$1"
	for i in "${!targets[@]}"; do
		logs[i]=$(mktemp)
		"${nice[@]}" "${MAKE}" --no-print-directory "${targets[i]}" >"${logs[i]}" 2>&1 &
		pids[i]=$!
	done
	for i in "${!targets[@]}"; do
		local code=0
		wait "${pids[i]}" || code=$?
		echo "=== ${targets[i]} (exit ${code}) ==="
		cat "${logs[i]}"
		rm -f "${logs[i]}"
		((code == 0)) || failed=${code}
	done
	return "${failed}"
}

# run_stage runs one stage in the foreground: a target, or a "+" group.
run_stage() {
	if [[ $1 == *+* ]]; then
		run_group "$1"
	else
		"${nice[@]}" "${MAKE}" --no-print-directory "$1"
	fi
}

# The background stages: name, pid, log and the file their exit code, start
# and end time go to.
bg_names=() bg_pids=() bg_logs=() bg_ends=()

# start_background starts a stage "bg:a" and returns at once.
start_background() {
	local stage=${1#bg:} log end
	log=$(mktemp)
	end=$(mktemp)
	(
		code=0 start=$(date +%s)
		nice=()
		run_stage "${stage}" >"${log}" 2>&1 || code=$?
		echo "${code} ${start} $(date +%s)" >"${end}"
	) &
	bg_names+=("${stage}") bg_pids+=($!) bg_logs+=("${log}") bg_ends+=("${end}")
	echo "started ${stage} in the background (log printed when it ends)"
}

# background_running says whether a background stage has not ended yet.
background_running() {
	local pid
	for pid in "${bg_pids[@]}"; do
		kill -0 "${pid}" 2>/dev/null && return 0
	done
	return 1
}

# wait_background waits for every background stage, prints its log and
# adds it to the table.
wait_background() {
	local i code start end
	for i in "${!bg_pids[@]}"; do
		wait "${bg_pids[i]}"
		read -r code start end <"${bg_ends[i]}"
		echo "=== ${bg_names[i]} (in the background, exit ${code}) ==="
		cat "${bg_logs[i]}"
		rm -f "${bg_logs[i]}" "${bg_ends[i]}"
		local result=ok
		if ((code != 0)); then
			result="FAILED (exit ${code})"
			((rc != 0)) || rc=${code}
		fi
		names+=("${bg_names[i]} (background)") secs+=($((end - start))) results+=("${result}")
	done
}

for stage in "$@"; do
	if [[ ${stage} == bg:* ]]; then
		start_background "${stage}"
		continue
	fi
	start=$(date +%s)
	nice=()
	if background_running; then
		nice=(nice -n 19)
	fi
	if run_stage "${stage}"; then
		result=ok
	else
		rc=$?
		result="FAILED (exit ${rc})"
	fi
	names+=("${stage}") secs+=($(($(date +%s) - start))) results+=("${result}")
	((rc == 0)) || break
done
wait_background

if ((rc != 0)); then
	mapfile -t reports < <(find _output -maxdepth 2 -name report.json -newer "${run_marker}" 2>/dev/null | sort)
	if ((${#reports[@]} > 0)); then
		echo
		echo "Failed specs of this run:"
		"${GO:-go}" run ./hack/e2e-failures "${reports[@]}"
	fi
fi

echo
echo "Stages of this run:"
for i in "${!names[@]}"; do
	printf '  %-22s %5d s  %s\n' "${names[$i]}" "${secs[$i]}" "${results[$i]}"
done
printf '  %-22s %5d s\n' total $(($(date +%s) - total_start))
exit "${rc}"
