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

package shardlease

import (
	"context"
	"strconv"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
)

// renewMember writes this replica's member Lease, creating it on the first
// round, and tells whether the write succeeded.
func (m *Manager) renewMember(ctx context.Context, now time.Time) bool {
	if err := m.claim(ctx, m.o.memberLease(), roleReplica, now); err != nil {
		klog.FromContext(ctx).Error(err, "Renewing the replica's lease", "lease", m.o.memberLease())
		return false
	}
	return true
}

// renewHeld renews every held shard; a shard whose renewal fails keeps its
// last deadline.
func (m *Manager) renewHeld(ctx context.Context, now time.Time) {
	for i := range m.held {
		name := m.o.shardLease(i)
		s, ok := m.view[name]
		if !ok || s.lease.Spec.HolderIdentity == nil || *s.lease.Spec.HolderIdentity != m.o.Identity {
			// Someone else wrote it: the shard is no longer this replica's,
			// and its work stops now rather than at the deadline.
			klog.FromContext(ctx).Info("Lost a shard's lease to another writer", "shard", i, "lease", name)
			delete(m.held, i)
			continue
		}
		if err := m.claim(ctx, name, roleShard, now); err != nil {
			klog.FromContext(ctx).Error(err, "Renewing a shard's lease", "shard", i, "lease", name)
			continue
		}
		m.held[i] = now
	}
}

// acquire takes a free shard; the write's resourceVersion precondition makes
// sure it is still the free Lease this replica planned from.
func (m *Manager) acquire(ctx context.Context, i int, now time.Time) {
	name := m.o.shardLease(i)
	if err := m.claim(ctx, name, roleShard, now); err != nil {
		klog.FromContext(ctx).Info("Could not acquire a shard", "shard", i, "lease", name, "err", err)
		return
	}
	klog.FromContext(ctx).Info("Acquired a shard", "shard", i, "lease", name)
	m.held[i] = now
}

// claim creates the Lease naming this replica as holder, or updates the
// version in the view to do so, as of now.
func (m *Manager) claim(ctx context.Context, name, role string, now time.Time) error {
	ctx, cancel := context.WithTimeout(ctx, m.o.RetryPeriod)
	defer cancel()
	leases := m.o.Client.Leases(m.o.Namespace)
	stamp := metav1.NewMicroTime(now)
	var written *coordinationv1.Lease
	var err error
	if s, ok := m.view[name]; ok {
		lease := s.lease.DeepCopy()
		if holder := lease.Spec.HolderIdentity; holder == nil || *holder != m.o.Identity {
			lease.Spec.AcquireTime = &stamp
			lease.Spec.LeaseTransitions = ptr.To(ptr.Deref(lease.Spec.LeaseTransitions, 0) + 1)
		}
		m.stamp(lease, role, stamp)
		written, err = leases.Update(ctx, lease, metav1.UpdateOptions{})
	} else {
		lease := &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: m.o.Namespace},
			Spec:       coordinationv1.LeaseSpec{AcquireTime: &stamp},
		}
		m.stamp(lease, role, stamp)
		written, err = leases.Create(ctx, lease, metav1.CreateOptions{})
	}
	if err != nil {
		return err
	}
	m.view.record(written, now)
	return nil
}

// stamp writes what every claim carries: holder, duration, renewal time,
// and the labels and annotation that place the Lease in the group.
func (m *Manager) stamp(lease *coordinationv1.Lease, role string, now metav1.MicroTime) {
	if lease.Labels == nil {
		lease.Labels = map[string]string{}
	}
	lease.Labels[groupLabel] = m.o.Group
	lease.Labels[roleLabel] = role
	if lease.Annotations == nil {
		lease.Annotations = map[string]string{}
	}
	lease.Annotations[countAnnotation] = strconv.Itoa(m.o.Shards)
	delete(lease.Annotations, releasedAnnotation)
	if i, ok := m.o.shardIndex(lease.Name); ok && role == roleShard {
		if n, ok := m.counts[i]; ok {
			lease.Annotations[hpasAnnotation] = strconv.Itoa(n)
		}
	}
	lease.Spec.HolderIdentity = ptr.To(m.o.Identity)
	lease.Spec.LeaseDurationSeconds = ptr.To(int32((m.o.LeaseDuration + time.Second - 1) / time.Second))
	lease.Spec.RenewTime = &now
}

// release gives a shard back by clearing its holder, so that its next owner
// need not wait for it to expire. The caller has stopped the work on it. A
// failed release is harmless: the Lease expires.
func (m *Manager) release(ctx context.Context, i int) {
	name := m.o.shardLease(i)
	s, ok := m.view[name]
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, m.o.RetryPeriod)
	defer cancel()
	lease := s.lease.DeepCopy()
	lease.Spec.HolderIdentity = nil
	if lease.Annotations == nil {
		lease.Annotations = map[string]string{}
	}
	lease.Annotations[releasedAnnotation] = m.o.Identity
	written, err := m.o.Client.Leases(m.o.Namespace).Update(ctx, lease, metav1.UpdateOptions{})
	if err != nil {
		klog.FromContext(ctx).Info("Could not release a shard; it will expire", "shard", i, "lease", name, "err", err)
		return
	}
	klog.FromContext(ctx).Info("Released a shard", "shard", i, "lease", name)
	m.view.record(written, m.o.Clock.Now())
}

// deleteMember removes the member Lease so that the others rebalance without
// waiting for it to expire.
func (m *Manager) deleteMember(ctx context.Context) {
	name := m.o.memberLease()
	s, ok := m.view[name]
	if !ok {
		return
	}
	err := m.o.Client.Leases(m.o.Namespace).Delete(ctx, name, metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{ResourceVersion: &s.lease.ResourceVersion},
	})
	if err != nil && !apierrors.IsNotFound(err) {
		klog.FromContext(ctx).Info("Could not delete the replica's lease; it will expire", "lease", name, "err", err)
	}
}
