package behavior

// Checkpoint saves what the Store knows about the HPA with this key and
// returns the function that puts it back. A pass that decided from a state
// of the target that turned out to be stale decides again; the abandoned
// decision must leave no recommendation behind, or the next one would be
// stabilized against a count that was never asked on the target's real
// state.
func (s *Store) Checkpoint(key string) (restore func()) {
	st := s.state(key)
	st.mu.Lock()
	saved := hpaState{
		recommendations: append(recommendationHistory(nil), st.recommendations...),
		scaleUps:        append(eventHistory(nil), st.scaleUps...),
		scaleDowns:      append(eventHistory(nil), st.scaleDowns...),
	}
	st.mu.Unlock()
	return func() {
		st.mu.Lock()
		defer st.mu.Unlock()
		st.recommendations, st.scaleUps, st.scaleDowns = saved.recommendations, saved.scaleUps, saved.scaleDowns
	}
}
