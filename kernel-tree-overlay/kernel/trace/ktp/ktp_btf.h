/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTP's expression compiler: C types from BTF (ktp_btf.c), which the
 * parser gives the names and operators of an expression.
 */
#ifndef _KERNEL_TRACE_KTP_BTF_H
#define _KERNEL_TRACE_KTP_BTF_H

#include "ktp_tree.h"

int ktp_btf_tpoint(struct ktp_compiler *c);
bool ktp_btf_scope(struct ktp_compiler *c);
void ktp_btf_release(struct ktp_compiler *c);
bool ktp_btf_is_param(struct ktp_compiler *c, const char *name);
int ktp_btf_fail_param(struct ktp_compiler *c, const char *at);
int ktp_btf_name(struct ktp_compiler *c, const char *name, int len,
		 unsigned int *num);
struct ktp_node *ktp_btf_current(struct ktp_compiler *c, const char *at);
struct ktp_node *ktp_btf_arg(struct ktp_compiler *c, struct ktp_node *n);
struct ktp_node *ktp_btf_retval(struct ktp_compiler *c, struct ktp_node *n);
struct ktp_node *ktp_btf_member(struct ktp_compiler *c, struct ktp_node *n,
				bool arrow, const char *name, int len,
				const char *at);
struct ktp_node *ktp_btf_value(struct ktp_compiler *c, struct ktp_node *n);
struct ktp_node *ktp_btf_deref(struct ktp_compiler *c, struct ktp_node *n,
			       const char *at);
struct ktp_node *ktp_btf_addr(struct ktp_compiler *c, struct ktp_node *n,
			      const char *at);
u32 ktp_btf_pointee_size(struct ktp_compiler *c, const struct ktp_node *p,
			 const char *at);
int ktp_btf_cast(struct ktp_compiler *c, const char **end,
		 struct ktp_node *cast);
int ktp_btf_parse_type(struct ktp_compiler *c, const char **end, s32 *id,
		       int *nptr, int *base, bool *user, bool comma);
int ktp_btf_set_type(struct ktp_compiler *c, struct ktp_node *n, s32 id,
		     int nptr, bool user, const char *at);
u32 ktp_btf_type_size(struct ktp_compiler *c, s32 id, int nptr, int base);
struct ktp_node *ktp_btf_enum_value(struct ktp_compiler *c, const char *name,
				    int len);

#endif /* _KERNEL_TRACE_KTP_BTF_H */
