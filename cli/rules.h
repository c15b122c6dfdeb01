/* SPDX-License-Identifier: Apache-2.0 */
/* What each rule of a finding means, for reports that show rules apart from their findings
 * (SARIF's tool.driver.rules, the step summary): a short and a full description, what to
 * do, and a severity on code scanning's 0.0 to 10.0 scale (security-severity). The texts say
 * what docs/policy.md and docs/certificate.md say; tests/cli/ci_reports.sh checks that every
 * rule those tables name has an entry. */
#ifndef BX_RULES_H
#define BX_RULES_H

typedef struct {
    const char *id;       /* "containment.rootfs"; "cis.5.4" */
    const char *severity; /* "7.5" */
    const char *name;     /* the short description */
    const char *full;     /* what is checked */
    const char *help;     /* what to do */
} rule_doc;

/* The entry of rule id; an entry saying so for a rule this table does not know (never
 * NULL). The strings are static. */
const rule_doc *rule_doc_of(const char *id);
/* 1 when rule id has an entry of its own. */
int rule_doc_known(const char *id);
/* The i-th entry (NULL past the last): for `boxcert schema rules`-like listings and tests. */
const rule_doc *rule_doc_at(unsigned i);

#endif
