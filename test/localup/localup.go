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

// Package localup runs a local control plane: a real etcd and this fork's kube-apiserver,
// both as child processes listening only on loopback. `make run` uses it through
// cmd/local-up, and the end-to-end tests use it directly.
package localup

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Default ports: none is a standard port (etcd's 2379/2380, kube-apiserver's 6443), so a
// local control plane can run beside a real cluster or a stock etcd.
const (
	DefaultEtcdPort      = 22379
	DefaultEtcdPeerPort  = 22380
	DefaultAPIServerPort = 26443
)

// Options says where the control plane keeps its state and how it listens.
type Options struct {
	// Dir holds the PKI, etcd's data, the logs and the kubeconfig. A re-run with the same
	// Dir keeps the stored objects.
	Dir string
	// BinDir holds the etcd and kube-apiserver binaries.
	BinDir string
	// KubeAPIServer, if set, is the kube-apiserver binary to run instead of BinDir's (the
	// stock one, where a test compares it with ours).
	KubeAPIServer string
	// Ports on 127.0.0.1; zero picks the defaults.
	EtcdPort, EtcdPeerPort, APIServerPort int
	// FeatureGates is passed to --feature-gates, e.g. "CRDFieldLevelVersioning=true".
	FeatureGates string
	// ExtraAPIServerArgs are appended to the kube-apiserver command line.
	ExtraAPIServerArgs []string
	// APIServerArgs, if set, replaces the default kube-apiserver command line (flags only).
	// It gets the PKI directory (kubeadm's file names: ca.crt, apiserver.crt, sa.pub, ...),
	// etcd's client URL and the secure port to use.
	APIServerArgs func(pkiDir, etcdURL string, port int) []string
	// ReadyTimeout bounds the wait for etcd's /health and kube-apiserver's /readyz.
	ReadyTimeout time.Duration
	// EtcdURL, if set, is an etcd that is already running (another control plane's): no
	// etcd is started and the etcd ports are unused. This is how a second kube-apiserver
	// joins a first one, as in an HA control plane.
	EtcdURL string
	// PKIDir, if set, holds the PKI to use (another control plane's) instead of Dir/pki.
	PKIDir string
}

// ControlPlane is a running etcd and kube-apiserver.
type ControlPlane struct {
	// Kubeconfig is the path of an admin kubeconfig (client certificate in system:masters).
	Kubeconfig string
	// URL is the kube-apiserver's https URL; EtcdURL is etcd's client URL.
	URL, EtcdURL string
	// PKIDir holds the CA, the serving and client certificates and the service-account keys.
	PKIDir string
	// Logs of the two processes.
	EtcdLog, APIServerLog string

	etcd, apiserver *process
}

type process struct {
	name string
	cmd  *exec.Cmd
	log  *os.File
	done chan struct{}
	err  error
}

// Start starts etcd, then kube-apiserver, waits until kube-apiserver's /readyz is OK and
// only then writes the kubeconfig. On error nothing is left running.
func Start(ctx context.Context, o Options) (cp *ControlPlane, err error) {
	o = withDefaults(o)
	bins := []string{"kube-apiserver"}
	ports := map[string]int{"kube-apiserver": o.APIServerPort}
	if o.EtcdURL == "" {
		bins = append(bins, "etcd")
		ports["etcd client"], ports["etcd peer"] = o.EtcdPort, o.EtcdPeerPort
	}
	binary := func(name string) string {
		if name == "kube-apiserver" && o.KubeAPIServer != "" {
			return o.KubeAPIServer
		}
		return filepath.Join(o.BinDir, name)
	}
	for _, b := range bins {
		if _, err := os.Stat(binary(b)); err != nil {
			return nil, fmt.Errorf("%s is not built (%v); run `make binaries` first", binary(b), err)
		}
	}
	if err := checkPortsFree(ports); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return nil, err
	}
	pki := o.PKIDir
	if pki == "" {
		pki = filepath.Join(o.Dir, "pki")
	}
	if err := ensurePKI(pki); err != nil {
		return nil, fmt.Errorf("cannot create the PKI in %s: %w", pki, err)
	}
	// A kubeconfig left by an earlier run would point at a server that is not up yet.
	kubeconfig := filepath.Join(o.Dir, "kubeconfig")
	if err := os.Remove(kubeconfig); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}

	cp = &ControlPlane{
		URL:          "https://127.0.0.1:" + strconv.Itoa(o.APIServerPort),
		EtcdURL:      o.EtcdURL,
		PKIDir:       pki,
		EtcdLog:      filepath.Join(o.Dir, "etcd.log"),
		APIServerLog: filepath.Join(o.Dir, "kube-apiserver.log"),
	}
	defer func() {
		if err != nil {
			cp.Stop()
			cp = nil
		}
	}()
	if cp.EtcdURL == "" {
		if err := cp.startEtcd(ctx, o); err != nil {
			return cp, err
		}
	}

	args := apiServerArgs(o, pki, cp.EtcdURL)
	if o.APIServerArgs != nil {
		args = o.APIServerArgs(pki, cp.EtcdURL, o.APIServerPort)
	}
	args = append(args, o.ExtraAPIServerArgs...)
	cp.apiserver, err = startProcess("kube-apiserver", binary("kube-apiserver"), cp.APIServerLog, args...)
	if err != nil {
		return cp, err
	}
	client, err := adminHTTPClient(pki)
	if err != nil {
		return cp, err
	}
	if err := waitReady(ctx, cp.apiserver, client, cp.URL+"/readyz", o.ReadyTimeout); err != nil {
		return cp, err
	}
	if err := writeKubeconfig(kubeconfig, cp.URL, pki); err != nil {
		return cp, err
	}
	cp.Kubeconfig = kubeconfig
	return cp, nil
}

// startEtcd starts a single-member etcd with its data in Dir/etcd.
func (c *ControlPlane) startEtcd(ctx context.Context, o Options) error {
	c.EtcdURL = "http://127.0.0.1:" + strconv.Itoa(o.EtcdPort)
	peerURL := "http://127.0.0.1:" + strconv.Itoa(o.EtcdPeerPort)
	var err error
	c.etcd, err = startProcess("etcd", filepath.Join(o.BinDir, "etcd"), c.EtcdLog,
		"--name=local-up",
		"--data-dir="+filepath.Join(o.Dir, "etcd"),
		"--listen-client-urls="+c.EtcdURL,
		"--advertise-client-urls="+c.EtcdURL,
		"--listen-peer-urls="+peerURL,
		"--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=local-up="+peerURL,
		"--listen-metrics-urls=",
		"--log-level=warn",
	)
	if err != nil {
		return err
	}
	return waitReady(ctx, c.etcd, http.DefaultClient, c.EtcdURL+"/health", o.ReadyTimeout)
}

func withDefaults(o Options) Options {
	if o.EtcdPort == 0 {
		o.EtcdPort = DefaultEtcdPort
	}
	if o.EtcdPeerPort == 0 {
		o.EtcdPeerPort = DefaultEtcdPeerPort
	}
	if o.APIServerPort == 0 {
		o.APIServerPort = DefaultAPIServerPort
	}
	if o.ReadyTimeout == 0 {
		o.ReadyTimeout = 2 * time.Minute
	}
	return o
}

// apiServerArgs is the command line kubeadm would give kube-apiserver, on loopback.
func apiServerArgs(o Options, pki, etcdURL string) []string {
	p := func(f string) string { return filepath.Join(pki, f) }
	args := []string{
		"--advertise-address=127.0.0.1",
		// The endpoints of the kubernetes Service may not be a loopback address, and there
		// are no nodes to reach the server through it anyway.
		"--endpoint-reconciler-type=none",
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(o.APIServerPort),
		"--etcd-servers=" + etcdURL,
		"--allow-privileged=true",
		"--authorization-mode=Node,RBAC",
		"--enable-admission-plugins=NodeRestriction",
		"--client-ca-file=" + p(caCert),
		"--tls-cert-file=" + p(apiserverCert),
		"--tls-private-key-file=" + p(apiserverKey),
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + p(saPublicKey),
		"--service-account-signing-key-file=" + p(saPrivateKey),
		"--service-cluster-ip-range=10.96.0.0/12",
		"--proxy-client-cert-file=" + p(frontProxyClientCrt),
		"--proxy-client-key-file=" + p(frontProxyClientKey),
		"--requestheader-client-ca-file=" + p(frontProxyCACert),
		"--requestheader-allowed-names=front-proxy-client",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-username-headers=X-Remote-User",
	}
	if o.FeatureGates != "" {
		args = append(args, "--feature-gates="+o.FeatureGates)
	}
	return args
}

func checkPortsFree(ports map[string]int) error {
	names := make([]string, 0, len(ports))
	for what := range ports {
		names = append(names, what)
	}
	sort.Strings(names)
	var problems []string
	for _, what := range names {
		port := ports[what]
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			problems = append(problems, fmt.Sprintf("the %s port %d on 127.0.0.1 is taken (%v)", what, port, err))
			continue
		}
		_ = l.Close()
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s; stop what uses it or pick other ports (make run ETCD_PORT=… ETCD_PEER_PORT=… APISERVER_PORT=…)", strings.Join(problems, "; "))
	}
	return nil
}

func startProcess(name, bin, logPath string, args ...string) (*process, error) {
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "\n==== %s: %s %s\n", time.Now().Format(time.RFC3339), bin, strings.Join(args, " "))
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	// Its own process group: a Ctrl-C in the terminal reaches only us, and we stop the
	// children in order (kube-apiserver before etcd).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		return nil, fmt.Errorf("cannot start %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, log: log, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Exited is closed when either process ends; Err then says which and why.
func (c *ControlPlane) Exited() <-chan struct{} {
	out := make(chan struct{})
	var etcdDone <-chan struct{} // nil, never ready, when the etcd is not ours
	if c.etcd != nil {
		etcdDone = c.etcd.done
	}
	go func() {
		select {
		case <-etcdDone:
		case <-c.apiserver.done:
		}
		close(out)
	}()
	return out
}

// Err describes a process that has ended, with the end of its log.
func (c *ControlPlane) Err() error {
	for _, p := range []*process{c.apiserver, c.etcd} {
		if p == nil {
			continue
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited (%v); last lines of %s:\n%s", p.name, p.err, p.log.Name(), tail(p.log.Name(), 20))
		default:
		}
	}
	return nil
}

// Stop stops kube-apiserver, then etcd, each with SIGTERM and, after 30s, SIGKILL.
func (c *ControlPlane) Stop() {
	for _, p := range []*process{c.apiserver, c.etcd} {
		if p == nil {
			continue
		}
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-p.done:
			case <-time.After(30 * time.Second):
				_ = p.cmd.Process.Kill()
				<-p.done
			}
		}
		_ = p.log.Close()
	}
}

func waitReady(ctx context.Context, p *process, client *http.Client, url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last string
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(body))
		} else {
			last = err.Error()
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited before it was ready (%v); last lines of %s:\n%s", p.name, p.err, p.log.Name(), tail(p.log.Name(), 20))
		case <-ctx.Done():
			return fmt.Errorf("%s was not ready at %s within %s (last answer: %s); see %s", p.name, url, timeout, last, p.log.Name())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func adminHTTPClient(pki string) (*http.Client, error) {
	cert, err := tls.LoadX509KeyPair(filepath.Join(pki, adminCert), filepath.Join(pki, adminKey))
	if err != nil {
		return nil, err
	}
	caPEM, err := os.ReadFile(filepath.Join(pki, caCert))
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("no certificate in %s", filepath.Join(pki, caCert))
	}
	return &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}},
	}, nil
}

func writeKubeconfig(path, server, pki string) error {
	read := func(f string) ([]byte, error) { return os.ReadFile(filepath.Join(pki, f)) }
	ca, err := read(caCert)
	if err != nil {
		return err
	}
	cert, err := read(adminCert)
	if err != nil {
		return err
	}
	key, err := read(adminKey)
	if err != nil {
		return err
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["local-up"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	cfg.AuthInfos["kubernetes-admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key}
	cfg.Contexts["kubernetes-admin@local-up"] = &clientcmdapi.Context{Cluster: "local-up", AuthInfo: "kubernetes-admin"}
	cfg.CurrentContext = "kubernetes-admin@local-up"
	return clientcmd.WriteToFile(*cfg, path)
}

func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
