#!/bin/sh
# invoke-rc.d policy for the test set-up's apt installs (POLICYRCD): never start a service (exit 101 = action
# forbidden). openssh-server and docker-registry are run only by the multi-host test rig, in namespaces.
exit 101
