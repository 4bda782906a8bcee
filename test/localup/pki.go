/*
Copyright 2026 The Kubernetes Authors.

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

package localup

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// The PKI of the local control plane, laid out as kubeadm lays out /etc/kubernetes/pki.
const (
	caCert              = "ca.crt"
	caKey               = "ca.key"
	apiserverCert       = "apiserver.crt"
	apiserverKey        = "apiserver.key"
	adminCert           = "admin.crt"
	adminKey            = "admin.key"
	frontProxyCACert    = "front-proxy-ca.crt"
	frontProxyCAKey     = "front-proxy-ca.key"
	frontProxyClientCrt = "front-proxy-client.crt"
	frontProxyClientKey = "front-proxy-client.key"
	saPublicKey         = "sa.pub"
	saPrivateKey        = "sa.key"
)

// ensurePKI creates the certificates and keys the control plane needs, unless they exist
// already: a re-run keeps them, so kubeconfigs handed out earlier stay valid.
func ensurePKI(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, saPrivateKey)); err == nil {
		return nil
	}
	ca, err := newCA("local-up-ca")
	if err != nil {
		return err
	}
	if err := ca.write(dir, caCert, caKey); err != nil {
		return err
	}
	serving, err := ca.issue(pkix.Name{CommonName: "kube-apiserver"}, x509.ExtKeyUsageServerAuth,
		[]string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"},
		[]net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback, net.IPv4(10, 96, 0, 1)})
	if err != nil {
		return err
	}
	if err := serving.write(dir, apiserverCert, apiserverKey); err != nil {
		return err
	}
	// system:masters is bound to cluster-admin by the bootstrap RBAC policy.
	admin, err := ca.issue(pkix.Name{CommonName: "kubernetes-admin", Organization: []string{"system:masters"}}, x509.ExtKeyUsageClientAuth, nil, nil)
	if err != nil {
		return err
	}
	if err := admin.write(dir, adminCert, adminKey); err != nil {
		return err
	}
	frontProxyCA, err := newCA("front-proxy-ca")
	if err != nil {
		return err
	}
	if err := frontProxyCA.write(dir, frontProxyCACert, frontProxyCAKey); err != nil {
		return err
	}
	frontProxy, err := frontProxyCA.issue(pkix.Name{CommonName: "front-proxy-client"}, x509.ExtKeyUsageClientAuth, nil, nil)
	if err != nil {
		return err
	}
	if err := frontProxy.write(dir, frontProxyClientCrt, frontProxyClientKey); err != nil {
		return err
	}
	// Service-account tokens are signed with RSA, as kubeadm does; written last, so that its
	// presence means the whole PKI is complete.
	sa, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	pub, err := x509.MarshalPKIXPublicKey(&sa.PublicKey)
	if err != nil {
		return err
	}
	if err := writePEM(filepath.Join(dir, saPublicKey), "PUBLIC KEY", pub, 0o644); err != nil {
		return err
	}
	return writePEM(filepath.Join(dir, saPrivateKey), "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(sa), 0o600)
}

type keyPair struct {
	cert *x509.Certificate
	der  []byte
	key  *ecdsa.PrivateKey
}

func newCA(name string) (*keyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          randomSerial(),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(10, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	return sign(tmpl, tmpl, key, key)
}

func (ca *keyPair) issue(subject pkix.Name, usage x509.ExtKeyUsage, dnsNames []string, ips []net.IP) (*keyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: randomSerial(),
		Subject:      subject,
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.AddDate(1, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
		DNSNames:     dnsNames,
		IPAddresses:  ips,
	}
	return sign(tmpl, ca.cert, key, ca.key)
}

func sign(tmpl, parent *x509.Certificate, key *ecdsa.PrivateKey, signer crypto.Signer) (*keyPair, error) {
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), signer)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &keyPair{cert: cert, der: der, key: key}, nil
}

func (kp *keyPair) write(dir, certFile, keyFile string) error {
	keyDER, err := x509.MarshalECPrivateKey(kp.key)
	if err != nil {
		return err
	}
	if err := writePEM(filepath.Join(dir, keyFile), "EC PRIVATE KEY", keyDER, 0o600); err != nil {
		return err
	}
	return writePEM(filepath.Join(dir, certFile), "CERTIFICATE", kp.der, 0o644)
}

func writePEM(path, blockType string, der []byte, mode os.FileMode) error {
	data := pem.EncodeToMemory(&pem.Block{Type: blockType, Bytes: der})
	if data == nil {
		return errors.New("cannot encode " + path)
	}
	if err := os.WriteFile(path, data, mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func randomSerial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		// crypto/rand does not fail on supported platforms; a fixed serial is still valid.
		return big.NewInt(time.Now().UnixNano())
	}
	return n
}
