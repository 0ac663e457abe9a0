# Installing kvbench and packaging it as a .deb (CPack). The model, hardware and workload catalogs
# are compiled into the binary (cmake/EmbedScenarios.cmake), so the binary needs no file beside it;
# the catalogs are installed too, as files to read, copy and pass to --hw / simulate, with the
# Grafana dashboard, the Kubernetes and Slurm examples, and one man page per subcommand
# (help2man from the binary's own --help, where help2man is installed).
include(GNUInstallDirs)

install(TARGETS kvbench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios/ DESTINATION ${CMAKE_INSTALL_DATADIR}/kvbench/scenarios
        FILES_MATCHING PATTERN "*.yaml")
install(FILES ${PROJECT_SOURCE_DIR}/deploy/grafana/kvbench.json DESTINATION ${CMAKE_INSTALL_DATADIR}/kvbench/grafana)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/deploy/kubernetes ${PROJECT_SOURCE_DIR}/deploy/slurm
        DESTINATION ${CMAKE_INSTALL_DATADIR}/kvbench/deploy)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

find_program(HELP2MAN help2man)
# Not in the sanitized and fuzzing builds: they are never installed.
if(HELP2MAN AND NOT KVBENCH_SANITIZE AND NOT KVBENCH_FUZZ)
  set(man_dir ${CMAKE_CURRENT_BINARY_DIR}/man)
  add_custom_command(OUTPUT ${man_dir}/kvbench.1.gz
                     COMMAND ${PROJECT_SOURCE_DIR}/scripts/man-pages.sh $<TARGET_FILE:kvbench> ${man_dir}
                     DEPENDS kvbench ${PROJECT_SOURCE_DIR}/scripts/man-pages.sh
                     COMMENT "man pages: help2man over kvbench --help and each subcommand's" VERBATIM)
  add_custom_target(kvbench_man_pages ALL DEPENDS ${man_dir}/kvbench.1.gz)
  install(DIRECTORY ${man_dir}/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 FILES_MATCHING PATTERN "*.1.gz")
else()
  message(STATUS "kvbench: help2man not found; no man pages (apt-get install help2man)")
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME kvbench)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "kvbench developers <kvbench@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Sizes and checks the CPU and file-system KV-cache tiers of LLM inference servers")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "kvbench measures how fast a node moves KV-cache blocks between GPU and CPU, simulates\n whether vLLM's CPU tier pays off for a workload, and sizes it (vLLM, SGLang, LMCache, Dynamo).")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# The shared libraries the binary links (fmt, yaml-cpp, libnuma; the GPU runtimes where a backend is
# built) become the package's Depends, from dpkg-shlibdeps.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)
include(CPack)
