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
# After a failure it prints what failed in the ginkgo reports the run wrote
# (_output/<suite>/report.json, through hack/e2e-failures), just above the
# table: the end of a CI log is often all that is kept of it.

set -o nounset -o pipefail

MAKE=${MAKE:-make}
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
		"${MAKE}" --no-print-directory "${targets[i]}" >"${logs[i]}" 2>&1 &
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

for stage in "$@"; do
	start=$(date +%s)
	if [[ ${stage} == *+* ]]; then
		run=(run_group "${stage}")
	else
		run=("${MAKE}" --no-print-directory "${stage}")
	fi
	if "${run[@]}"; then
		result=ok
	else
		rc=$?
		result="FAILED (exit ${rc})"
	fi
	names+=("${stage}") secs+=($(($(date +%s) - start))) results+=("${result}")
	((rc == 0)) || break
done

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
