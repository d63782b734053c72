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

package autoscaling

import (
	"bytes"
	"context"
	"crypto/x509"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/kube-hpa/kube-hpa/test/e2e/framework"
	"github.com/kube-hpa/kube-hpa/test/testca"
)

// Waits of the certificate specs.
const (
	// certServedTimeout bounds the wait for every replica to serve a
	// renewed certificate: the replicas look at their files at most once
	// a second, from a handshake.
	certServedTimeout = 15 * time.Second
	// admissionCallsBefore is how many admission calls the loop makes
	// before a renewal.
	admissionCallsBefore = 20
	admissionLoopTimeout = time.Minute
	// admissionAfter is how long the loop goes on once every replica
	// serves the renewed certificate: past the replicas' next looks at
	// their files (once a second, comparing contents for 3s after a
	// write), in which a reload gone wrong would show.
	admissionAfter = 5 * time.Second
)

// The serving certificate is renewed under running replicas as a cluster
// with cert-manager renews it: a new key pair written into the
// Certificate's Secret, which the kubelet projects into the pods by
// swapping a symlink (testca.WriteSecretVolume). The specs are Serial
// because they change what every spec's HPAs go through, and Disruptive
// because a failure leaves the webhook refusing every HPA.
var _ = sigDescribe([]string{featureHPA, serial, disruptive, crdMode}, "hpa-controller-manager webhook certificate", func() {
	f := newFramework("webhook-cert")
	f.NoPods = true

	ginkgo.It("should keep admitting HPAs while its serving certificate is renewed by the same CA, and serve the new one without a restart", func(ctx context.Context) {
		certs := requireWebhookCertificates()
		before := replicaProcesses(ctx)
		expectAdmission(ctx, f)
		issuer, err := certs.Issuer()
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		old, err := certs.Current()
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		loop := startAdmissionLoop(ctx, f)
		ginkgo.By("renewing the serving certificate: a new key pair signed by the same CA, projected as the kubelet updates a Secret volume")
		renewed, err := certs.Renew(issuer)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(renewed.PublicKey).NotTo(gomega.Equal(old.PublicKey), "a renewal with a new key")
		ginkgo.By("waiting for every replica to serve it on its webhook and secure ports")
		waitServed(ctx, certs, renewed, issuer.Pool())

		stopAdmissionLoop(ctx, loop)
		expectReloadedWithoutRestart(ctx, before, renewed)
		ginkgo.AddReportEntry("serving certificate", fmt.Sprintf("serial %s -> %s", old.SerialNumber, renewed.SerialNumber))
	})

	ginkgo.It("should keep admitting HPAs through a rotation of its CA, with both CAs in the caBundle while they overlap", func(ctx context.Context) {
		certs := requireWebhookCertificates()
		before := replicaProcesses(ctx)
		expectAdmission(ctx, f)
		oldCA, err := certs.Issuer()
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		saved, err := certs.Configuration(ctx)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		for _, hook := range saved.Webhooks {
			gomega.Expect(hook.ClientConfig.CABundle).To(gomega.Equal(oldCA.PEM()), "the caBundle of %s before the rotation", hook.Name)
		}
		newCA, err := testca.New("kube-hpa-e2e-webhook-ca-next")
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		// Back to the environment's CA the same way, so that the specs
		// after this one find the webhook as it started.
		ginkgo.DeferCleanup(func(ctx context.Context) {
			ginkgo.By("rotating back to the environment's CA")
			rotateCA(ctx, f, certs, newCA, oldCA)
			gomega.Expect(certs.RestoreConfiguration(ctx, saved)).To(gomega.Succeed())
		})

		loop := startAdmissionLoop(ctx, f)
		renewed := rotateCA(ctx, f, certs, oldCA, newCA)
		stopAdmissionLoop(ctx, loop)
		expectReloadedWithoutRestart(ctx, before, renewed)
		_, err = renewed.Verify(x509.VerifyOptions{Roots: oldCA.Pool()})
		gomega.Expect(err).To(gomega.HaveOccurred(), "the renewed certificate must not verify against the old CA alone")
	})
})

// requireWebhookCertificates skips a spec outside the local environment
// of the CRD mode, the only one whose certificate files the suite writes.
func requireWebhookCertificates() *framework.WebhookCertificates {
	requireLocal()
	certs := suite.WebhookCertificates()
	if certs == nil {
		ginkgo.Skip("the environment has no webhook certificate files of the suite's")
	}
	return certs
}

// rotateCA moves the webhook from a serving certificate of from to one of
// to, as cert-manager's CA injector and a CA Issuer do it without an
// outage: both CAs in the caBundle, then the certificate renewed by to,
// then from dropped. It returns the certificate of to.
func rotateCA(ctx context.Context, f *framework.Framework, certs *framework.WebhookCertificates, from, to *testca.CA) *x509.Certificate {
	ginkgo.GinkgoHelper()
	ginkgo.By("injecting both CAs into the caBundle, the one in use first")
	both := append(from.PEM(), to.PEM()...)
	gomega.Expect(certs.InjectCABundle(ctx, f.Namespace, both)).To(gomega.Succeed())
	ginkgo.By("renewing the serving certificate with the new CA")
	renewed, err := certs.Renew(to)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.By("waiting for every replica to serve it on its webhook and secure ports")
	waitServed(ctx, certs, renewed, to.Pool())
	ginkgo.By("dropping the old CA from the caBundle")
	gomega.Expect(certs.InjectCABundle(ctx, f.Namespace, to.PEM())).To(gomega.Succeed())
	return renewed
}

// expectAdmission creates two HPAs through the webhook: a valid one is
// stored, and one that only the webhook can refuse is refused by it,
// naming the field.
func expectAdmission(ctx context.Context, f *framework.Framework) {
	ginkgo.GinkgoHelper()
	ginkgo.By("creating HPAs through the webhook: a valid one is accepted, an invalid one refused with its field path")
	valid, invalid := framework.AdmissionProbeHPAs("through-webhook")
	gomega.Expect(f.TryCreateHPA(ctx, f.Namespace, valid, false)).To(gomega.Succeed(), "creating a valid HPA")
	err := f.TryCreateHPA(ctx, f.Namespace, invalid, false)
	gomega.Expect(err).To(gomega.HaveOccurred(), "creating an HPA that only the webhook refuses")
	gomega.Expect(framework.IsWebhookRefusal(err)).To(gomega.BeTrue(), "refused by the webhook, naming the field: %v", err)
	ginkgo.AddReportEntry("refusal", err.Error())
}

// startAdmissionLoop starts calling admission and returns once it has
// made a few calls, all answered as they should.
func startAdmissionLoop(ctx context.Context, f *framework.Framework) *framework.AdmissionLoop {
	ginkgo.GinkgoHelper()
	ginkgo.By("calling admission without pause from now on")
	loop := f.StartAdmissionLoop(ctx)
	ginkgo.DeferCleanup(func() { loop.Stop() })
	gomega.Eventually(ctx, loop.Tally).WithTimeout(admissionLoopTimeout).
		Should(gomega.HaveField("Calls", gomega.BeNumerically(">=", admissionCallsBefore)), "admission calls before the renewal")
	return loop
}

// stopAdmissionLoop lets the loop go on against the renewed certificate
// for admissionAfter, stops it and expects no call to have failed.
func stopAdmissionLoop(ctx context.Context, loop *framework.AdmissionLoop) {
	ginkgo.GinkgoHelper()
	ginkgo.By(fmt.Sprintf("calling admission for %s more", admissionAfter))
	gomega.Consistently(ctx, func() []string { return loop.Tally().Failures }).WithTimeout(admissionAfter).
		Should(gomega.BeEmpty(), "admission calls that failed during the renewal")
	tally := loop.Stop()
	ginkgo.AddReportEntry("admission calls during the renewal", fmt.Sprintf("%d calls (%d HPAs stored), %d failed", tally.Calls, tally.Stored, len(tally.Failures)))
	gomega.Expect(tally.Failures).To(gomega.BeEmpty(), "admission calls that failed during the renewal")
}

// waitServed waits until every port of every replica serves want, on a
// new connection verified with roots.
func waitServed(ctx context.Context, certs *framework.WebhookCertificates, want *x509.Certificate, roots *x509.CertPool) {
	ginkgo.GinkgoHelper()
	gomega.Eventually(ctx, func(ctx context.Context) error {
		served, err := certs.Served(ctx, roots)
		if err != nil {
			return err
		}
		for _, s := range served {
			if !bytes.Equal(s.Leaf.Raw, want.Raw) {
				return fmt.Errorf("%s serves serial %s on port %d, want %s", s.Replica, s.Leaf.SerialNumber, s.Port, want.SerialNumber)
			}
		}
		return nil
	}).WithTimeout(certServedTimeout).WithPolling(250*time.Millisecond).Should(gomega.Succeed(), "the renewed certificate served")
}

// replicaProcesses is the process of every controller replica, once all
// run.
func replicaProcesses(ctx context.Context) []framework.ReplicaStatus {
	ginkgo.GinkgoHelper()
	c := suite.Controllers
	gomega.Expect(c.WaitAllRunning(ctx)).To(gomega.Succeed())
	status, err := c.Control().Replicas(ctx)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return status
}

// expectReloadedWithoutRestart expects the replicas to be the processes
// of before, each of which logged loading renewed.
func expectReloadedWithoutRestart(ctx context.Context, before []framework.ReplicaStatus, renewed *x509.Certificate) {
	ginkgo.GinkgoHelper()
	after := replicaProcesses(ctx)
	gomega.Expect(after).To(gomega.HaveLen(len(before)))
	for i, b := range before {
		gomega.Expect(after[i].PID).To(gomega.Equal(b.PID), "%s's process", b.Name)
		gomega.Expect(after[i].Starts).To(gomega.Equal(b.Starts), "%s's starts", b.Name)
		log, err := os.ReadFile(suite.Controllers.LogPath(i))
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		reloaded := 0
		for _, line := range strings.Split(string(log), "\n") {
			if strings.Contains(line, "Reloaded the serving certificate") && strings.Contains(line, renewed.SerialNumber.String()) {
				reloaded++
			}
		}
		// The webhook's and the secure port's.
		gomega.Expect(reloaded).To(gomega.Equal(2), "%s's log of reloading serial %s", b.Name, renewed.SerialNumber)
	}
	ginkgo.AddReportEntry("replicas", fmt.Sprintf("%v", after))
}
