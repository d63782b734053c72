package localcluster

import (
	"os"
	"syscall"
	"testing"
)

func TestReadStatFindsOwnProcessGroup(t *testing.T) {
	pgid, state, err := readStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if want := syscall.Getpgrp(); pgid != want {
		t.Errorf("pgid %d, want %d", pgid, want)
	}
	if state == "" || state == "Z" {
		t.Errorf("state %q for a running process", state)
	}
}
