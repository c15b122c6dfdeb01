# SPDX-License-Identifier: Apache-2.0
# Debian packages with CPack (`cpack -G DEB` in a build folder; tests/packages/debs.sh):
# boxcert-verify (the verifier component) and boxcert (the collector, which depends on the
# verifier of the same version). Library dependencies come from dpkg-shlibdeps. CPack indents each description line after
# the first by one space itself (Debian's continuation lines): they are written unindented.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME boxcert)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "boxcert")
set(CPACK_PACKAGE_CONTACT "boxcert developers <boxcert@lists.boxcert.dev>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_PACKAGE_RELEASE "")
if(BOXCERT_VERIFY_ONLY)
  set(CPACK_COMPONENTS_ALL verifier)
else()
  set(CPACK_COMPONENTS_ALL verifier collector)
endif()
set(CPACK_DEBIAN_VERIFIER_PACKAGE_NAME boxcert-verify)
set(CPACK_DEBIAN_COLLECTOR_PACKAGE_NAME boxcert)
set(CPACK_DEBIAN_COLLECTOR_PACKAGE_DEPENDS "boxcert-verify (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_COLLECTOR_PACKAGE_SUGGESTS "docker.io")
set(CPACK_COMPONENT_VERIFIER_DESCRIPTION
"offline verifier of container containment certificates
boxcert-verify checks, offline, signed certificates of how a container session
was contained (network, read-only root, capabilities, seccomp, AppArmor,
runtime, user ids, namespaces, resources, mounts and every writable place)
against a policy, with no access to the host that ran it. It is the CI gate
and the auditor's tool: text, JSON, JUnit, SARIF and GitHub reports.
.
This package holds no engine code: no libcurl, no libgit2, no collector.")
set(CPACK_COMPONENT_COLLECTOR_DESCRIPTION
"containment certificates for Docker container sessions
boxcert observes a running Docker container session (the engine, the kernel
and the runtime), and signs a certificate of how it was contained: an in-toto
statement in a DSSE envelope. It also audits a whole run of sessions and
keeps certificates as git notes.
.
Verification is done by boxcert-verify, which this package depends on.")
include(CPack)
