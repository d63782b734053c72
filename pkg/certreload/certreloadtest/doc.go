// Package certreloadtest makes serving certificates and Secret-volume-like
// files for tests of code that serves with pkg/certreload.
package certreloadtest
