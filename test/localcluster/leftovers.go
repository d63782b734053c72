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

package localcluster

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// LeftoverProcesses describes every process still alive that belongs to
// the cluster: a member of a component's process group, or a process whose
// command line names the run directory (every component's does). After
// Stop it should be empty; tests assert that.
func (c *Cluster) LeftoverProcesses() ([]string, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	self := os.Getpid()
	c.mu.Lock()
	pgids := slices.Clone(c.pgids)
	c.mu.Unlock()
	var leftovers []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		pgid, state, err := readStat(pid)
		if err != nil || state == "Z" {
			continue // gone meanwhile, or a zombie that holds nothing
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		cmd := strings.TrimSpace(string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
		if slices.Contains(pgids, pgid) || strings.Contains(cmd, c.layout.runDir) {
			leftovers = append(leftovers, fmt.Sprintf("pid %d (pgid %d): %s", pid, pgid, cmd))
		}
	}
	return leftovers, nil
}

// readStat returns the process group and state of pid from /proc/<pid>/stat,
// whose second field (the command) may hold spaces and parentheses.
func readStat(pid int) (pgid int, state string, err error) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, "", err
	}
	end := bytes.LastIndexByte(data, ')')
	if end < 0 {
		return 0, "", fmt.Errorf("malformed stat of %d", pid)
	}
	// After "pid (comm) ": state ppid pgrp ...
	fields := strings.Fields(string(data[end+1:]))
	if len(fields) < 3 {
		return 0, "", fmt.Errorf("malformed stat of %d", pid)
	}
	pgid, err = strconv.Atoi(fields[2])
	return pgid, fields[0], err
}
