# SPDX-License-Identifier: Apache-2.0
# What `cmake --install` (and so each package) installs, by component:
#   verifier   /usr/bin/boxcert-verify, the pages of the commands it has, boxcert-policy(5),
#              boxcert-certificate(5), its completions, the offline docs and example policies
#   collector  /usr/bin/boxcert, boxcert(1) and the pages of the collecting commands, its
#              bash completion, every doc and the examples
# Manual pages are written in roff (man/, one page per command) and installed gzipped.
set(man_verifier boxcert-verify.1 boxcert-show.1 boxcert-policy.1 boxcert-schema.1
    boxcert-version.1 boxcert-policy.5 boxcert-certificate.5)
set(man_collector boxcert.1 boxcert-keygen.1 boxcert-inspect.1 boxcert-collect.1 boxcert-sign.1
    boxcert-audit.1 boxcert-ledger.1)
set(verifier_docs docs/certificate.md docs/policy.md docs/ci.md docs/security.md
    docs/threat-model.md)
set(docdir_verifier ${CMAKE_INSTALL_DATADIR}/doc/boxcert-verify)
set(docdir_collector ${CMAKE_INSTALL_DATADIR}/doc/boxcert)

find_program(GZIP gzip REQUIRED)
set(man_gz "")
foreach(page ${man_verifier} ${man_collector})
  set(gz ${CMAKE_BINARY_DIR}/man/${page}.gz)
  add_custom_command(OUTPUT ${gz}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
    COMMAND sh -c "${GZIP} -9n -c \"$1\" > \"$2\"" sh ${CMAKE_SOURCE_DIR}/man/${page} ${gz}
    DEPENDS ${CMAKE_SOURCE_DIR}/man/${page} VERBATIM)
  list(APPEND man_gz ${gz})
endforeach()
set(changelog_gz ${CMAKE_BINARY_DIR}/packaging/changelog.gz)
add_custom_command(OUTPUT ${changelog_gz}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/packaging
  COMMAND sh -c "${GZIP} -9n -c \"$1\" > \"$2\"" sh ${CMAKE_SOURCE_DIR}/packaging/changelog
          ${changelog_gz}
  DEPENDS ${CMAKE_SOURCE_DIR}/packaging/changelog VERBATIM)
add_custom_target(man-pages ALL DEPENDS ${man_gz} ${changelog_gz})

function(install_man component)
  foreach(page ${ARGN})
    string(REGEX REPLACE "^.*\\.([0-9])$" "\\1" section ${page})
    install(FILES ${CMAKE_BINARY_DIR}/man/${page}.gz
            DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section} COMPONENT ${component})
  endforeach()
endfunction()

# verifier
install(TARGETS boxcert-verify RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT verifier)
install_man(verifier ${man_verifier})
install(FILES completions/boxcert.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME boxcert-verify COMPONENT verifier)
install(FILES completions/_boxcert DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions
        COMPONENT verifier)
install(FILES README.md ${verifier_docs} packaging/copyright ${changelog_gz}
        DESTINATION ${docdir_verifier} COMPONENT verifier)
install(DIRECTORY examples/policies DESTINATION ${docdir_verifier}/examples COMPONENT verifier)

# collector
if(NOT BOXCERT_VERIFY_ONLY)
  install(TARGETS boxcert RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT collector)
  install_man(collector ${man_collector})
  install(FILES completions/boxcert.bash
          DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME boxcert
          COMPONENT collector)
  file(GLOB all_docs CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/docs/*.md)
  install(FILES README.md packaging/copyright ${changelog_gz} DESTINATION ${docdir_collector}
          COMPONENT collector)
  install(FILES ${all_docs} DESTINATION ${docdir_collector}/docs COMPONENT collector)
  install(DIRECTORY examples/ DESTINATION ${docdir_collector}/examples COMPONENT collector)
endif()
