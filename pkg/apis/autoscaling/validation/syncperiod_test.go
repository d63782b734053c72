package validation

import (
	"testing"
)

// TestValidateSyncPeriod pins KEP-6003's rules of behavior.syncPeriodSeconds:
// from 1 to 3600 seconds, allowed by HPAConfigurableSyncPeriod or by an old
// object that already set it (ratcheting, whatever its value), and not
// checked further while its gate refuses it.
func TestValidateSyncPeriod(t *testing.T) {
	const path = "spec.behavior.syncPeriodSeconds"
	runValidationCases(t, []validationCase{
		{name: "1 second, the minimum, is valid when the gate is on", gates: syncPeriodOn, hpa: hpa(syncPeriod(1))},
		{name: "3600 seconds, the maximum, is valid when the gate is on", gates: syncPeriodOn, hpa: hpa(syncPeriod(3600))},
		{name: "15 seconds is valid when the gate is on", gates: syncPeriodOn, hpa: hpa(syncPeriod(15))},
		{
			name: "syncPeriodSeconds beside scaling rules is valid when the gate is on", gates: syncPeriodOn,
			hpa: hpa(behavior(rules(nil, podsPolicy(4, 15)), nil), syncPeriod(2)),
		},
		{name: "a behavior without syncPeriodSeconds needs no gate", gates: syncPeriodOff, hpa: hpa(behavior(rules(nil, podsPolicy(4, 15)), nil))},
		{name: "0 is invalid when the gate is on", gates: syncPeriodOn, hpa: hpa(syncPeriod(0)), want: []wantErr{invalid(path)}},
		{name: "a negative period is invalid when the gate is on", gates: syncPeriodOn, hpa: hpa(syncPeriod(-15)), want: []wantErr{invalid(path)}},
		{name: "3601 seconds is invalid when the gate is on", gates: syncPeriodOn, hpa: hpa(syncPeriod(3601)), want: []wantErr{invalid(path)}},
		{
			name: "the largest int32 is invalid when the gate is on", gates: syncPeriodOn,
			hpa: hpa(syncPeriod(2147483647)), want: []wantErr{invalid(path)},
		},
		{name: "syncPeriodSeconds is forbidden on create when the gate is off", gates: syncPeriodOff, hpa: hpa(syncPeriod(5)), want: []wantErr{forbidden(path)}},
		{name: "syncPeriodSeconds is forbidden by the default gates", gates: gateSetting{}, hpa: hpa(syncPeriod(5)), want: []wantErr{forbidden(path)}},
		{
			name: "a refused syncPeriodSeconds is not checked further when the gate is off", gates: syncPeriodOff,
			hpa: hpa(syncPeriod(0)), want: []wantErr{forbidden(path)},
		},
		{
			name: "syncPeriodSeconds kept on update stays valid after the gate is turned off", gates: syncPeriodOff,
			old: hpa(syncPeriod(5)), hpa: hpa(syncPeriod(5), maxReplicas(20)),
		},
		{
			name: "syncPeriodSeconds changed on update stays valid when the old object set it", gates: syncPeriodOff,
			old: hpa(syncPeriod(5)), hpa: hpa(syncPeriod(60)),
		},
		{
			name: "a ratcheted syncPeriodSeconds is still checked for its bounds", gates: syncPeriodOff,
			old: hpa(syncPeriod(5)), hpa: hpa(syncPeriod(7200)), want: []wantErr{invalid(path)},
		},
		{
			name: "an out-of-range stored value ratchets an update to a valid one", gates: syncPeriodOff,
			old: hpa(syncPeriod(0)), hpa: hpa(syncPeriod(30)),
		},
		{
			name: "syncPeriodSeconds added on update is forbidden when the gate is off", gates: syncPeriodOff,
			old: hpa(), hpa: hpa(syncPeriod(5)), want: []wantErr{forbidden(path)},
		},
		{name: "syncPeriodSeconds added on update is valid when the gate is on", gates: syncPeriodOn, old: hpa(), hpa: hpa(syncPeriod(5))},
		{name: "syncPeriodSeconds removed on update is valid when the gate is off", gates: syncPeriodOff, old: hpa(syncPeriod(5)), hpa: hpa()},
		{name: "a stored syncPeriodSeconds is not refused after the gate is turned off", gates: syncPeriodOff, op: stored, hpa: hpa(syncPeriod(2))},
		{name: "a stored out-of-range syncPeriodSeconds is refused", gates: syncPeriodOff, op: stored, hpa: hpa(syncPeriod(0)), want: []wantErr{invalid(path)}},
	})
}
