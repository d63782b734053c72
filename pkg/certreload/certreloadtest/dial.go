package certreloadtest

import (
	"crypto/tls"
	"testing"
)

// DialSerial opens a new connection and returns the serial of the leaf
// the server presented. A new connection is a new handshake, the only
// moment a server following its files can change what it serves.
func DialSerial(t testing.TB, addr string, cfg *tls.Config) int64 {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
}
