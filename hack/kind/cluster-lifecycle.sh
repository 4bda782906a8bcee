# Source it; do not run it. kind_cluster_lifecycle makes a test script own one kind cluster
# from here to its exit: a cluster of the same name left by an interrupted run is deleted
# first, and on every exit (success, failure, Ctrl-C or SIGTERM) the cluster is deleted,
# after its node logs are exported to $WORK/logs when the script failed. The exit code turns
# to 1 if any container labelled with the cluster is still there afterwards, so a test that
# leaves a container behind fails.
#
# It reads these variables of the sourcing script: CLUSTER (the cluster name), KIND (the kind
# binary), KUBECONFIG_FILE, WORK (a directory of the run's files), and the function log.

kind_cluster_leftovers() { docker ps -a -q --filter "label=io.x-k8s.kind.cluster=$CLUSTER"; }

kind_cluster_delete() {
  "$KIND" delete cluster --name "$CLUSTER" --kubeconfig "$KUBECONFIG_FILE" >/dev/null 2>&1 || true
}

kind_cluster_finish() {
  local rc=$?
  if [ $rc -ne 0 ] && [ -n "$(kind_cluster_leftovers)" ]; then
    log "failed (exit $rc); node logs: $WORK/logs"
    "$KIND" export logs "$WORK/logs" --name "$CLUSTER" >/dev/null 2>&1 || true
  fi
  kind_cluster_delete
  if [ -n "$(kind_cluster_leftovers)" ]; then
    log "error: containers of cluster $CLUSTER are left: $(kind_cluster_leftovers | tr '\n' ' ')"
    rc=1
  fi
  log "exit $rc after $SECONDS s"
  exit $rc
}

kind_cluster_lifecycle() {
  if [ -n "$(kind_cluster_leftovers)" ]; then
    log "deleting a cluster $CLUSTER left by an earlier run"
    kind_cluster_delete
  fi
  trap kind_cluster_finish EXIT
  trap 'exit 130' INT TERM
}
