/*
Copyright The kube-hpa Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package bench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat:
// 100 on every Linux architecture Go supports (the kernel fixes it for
// user space whatever CONFIG_HZ is).
const clockTicks = 100

// cpuTime returns the user plus system CPU time pid has used so far.
func cpuTime(pid int) (time.Duration, error) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, err
	}
	return parseCPUTime(data)
}

// parseCPUTime reads utime and stime (fields 14 and 15) of a stat line. The
// command (field 2) may hold spaces and parentheses, so fields are counted
// from its closing parenthesis.
func parseCPUTime(stat []byte) (time.Duration, error) {
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, fmt.Errorf("malformed stat line %q", stat)
	}
	fields := strings.Fields(string(stat[end+1:]))
	// fields[0] is field 3 (state), so utime is fields[11], stime fields[12].
	if len(fields) < 13 {
		return 0, fmt.Errorf("short stat line %q", stat)
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("stat line %q: %w", stat, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// peakRSS returns VmHWM, the most resident memory pid has had, in bytes.
func peakRSS(pid int) (int64, error) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0, err
	}
	return parseStatusKB(data, "VmHWM")
}

// currentRSS returns VmRSS, the resident memory pid has now, in bytes.
func currentRSS(pid int) (int64, error) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0, err
	}
	return parseStatusKB(data, "VmRSS")
}

// parseStatusKB reads a "Key:   123 kB" line of /proc/<pid>/status.
func parseStatusKB(status []byte, key string) (int64, error) {
	scanner := bufio.NewScanner(bytes.NewReader(status))
	for scanner.Scan() {
		name, value, ok := strings.Cut(scanner.Text(), ":")
		if !ok || name != key {
			continue
		}
		fields := strings.Fields(value)
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, fmt.Errorf("unexpected %s line %q", key, scanner.Text())
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		return kb * 1024, err
	}
	return 0, fmt.Errorf("no %s in status", key)
}

// findProcess returns the pid of the running binary named name whose
// command line contains marker (a cluster's run directory): how the
// benchmark finds the kube-apiserver that test/localcluster started,
// to read its CPU time.
func findProcess(name, marker string) (int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(cmdline), "\x00")
		if filepath.Base(args[0]) == name && strings.Contains(string(cmdline), marker) {
			return pid, nil
		}
	}
	return 0, fmt.Errorf("no %s process with %q in its command line", name, marker)
}

// machineCPU returns the busy and total CPU time of the whole machine, in
// clock ticks over all cores, from the first line of /proc/stat. The
// machine is shared, so this tells how loaded it was while a window ran,
// by the benchmark or by anything else.
func machineCPU() (busy, total int64, err error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	return parseMachineCPU(data)
}

func parseMachineCPU(stat []byte) (busy, total int64, err error) {
	line, _, _ := bytes.Cut(stat, []byte("\n"))
	fields := strings.Fields(string(line))
	if len(fields) < 6 || fields[0] != "cpu" {
		return 0, 0, fmt.Errorf("unexpected first line of /proc/stat: %q", line)
	}
	// user nice system idle iowait irq softirq steal [guest guest_nice],
	// where guest time is already part of user time.
	for i, f := range fields[1:min(len(fields), 9)] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc/stat: %w", err)
		}
		total += n
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	return busy, total, nil
}

// oomKills returns how many processes the kernel's out-of-memory killer
// has killed since boot (oom_kill of /proc/vmstat, Linux 4.13 and later):
// a size of the scaling scenario that fails while it grows ran out of
// memory.
func oomKills() (int64, error) {
	data, err := os.ReadFile("/proc/vmstat")
	if err != nil {
		return 0, err
	}
	return parseOOMKills(data)
}

func parseOOMKills(vmstat []byte) (int64, error) {
	scanner := bufio.NewScanner(bytes.NewReader(vmstat))
	for scanner.Scan() {
		name, value, ok := strings.Cut(scanner.Text(), " ")
		if ok && name == "oom_kill" {
			return strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		}
	}
	return 0, errors.New("no oom_kill in /proc/vmstat")
}
