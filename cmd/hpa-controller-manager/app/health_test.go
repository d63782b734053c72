package app

import "testing"

func TestReadiness(t *testing.T) {
	cases := []struct {
		name    string
		leading bool
		synced  func() bool // nil: no controller yet
		want    bool
	}{
		{name: "a standby replica is ready", leading: false, want: true},
		{name: "a leader without a controller yet is not ready", leading: true, want: false},
		{name: "a leader whose controller has not synced is not ready", leading: true, synced: func() bool { return false }, want: false},
		{name: "a leader whose controller has synced is ready", leading: true, synced: func() bool { return true }, want: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHealthState()
			h.leading.Store(tc.leading)
			if tc.synced != nil {
				h.setSynced(tc.synced)
			}
			if got := h.ready(); got != tc.want {
				t.Errorf("ready = %v, want %v", got, tc.want)
			}
		})
	}
}
