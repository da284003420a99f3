/* harness/store/git2.h — libgit2, opened when perfgate first needs git.
 *
 * Linked, libgit2 and the fifteen libraries under it (TLS, ssh, Kerberos,
 * pcre2...) were loaded and relocated at every perfgate start: about 4 ms of
 * CPU and 3.3 MiB of resident memory, also for the commands that never touch
 * git (compare of two result files, record, flamegraph, top). Include this
 * instead of <git2.h>: the functions perfgate calls keep their names, each
 * now a pointer that pg_git2_load fills, and the rest of libgit2's API (its
 * types, constants, option structs) is unchanged. A libgit2 function missing
 * from the list below is an undefined reference at link time: list it. */
#ifndef PG_HARNESS_GIT2_H
#define PG_HARNESS_GIT2_H

#include <git2.h>
#include <git2/sys/repository.h>     /* git_repository__cleanup */

#define PG_GIT2_FUNCTIONS(X) \
    X(git_blob_create_from_buffer) \
    X(git_blob_free) \
    X(git_blob_lookup) \
    X(git_blob_rawcontent) \
    X(git_blob_rawsize) \
    X(git_buf_dispose) \
    X(git_checkout_options_init) \
    X(git_checkout_tree) \
    X(git_commit_create) \
    X(git_commit_free) \
    X(git_commit_lookup) \
    X(git_commit_parent_id) \
    X(git_commit_parentcount) \
    X(git_commit_summary) \
    X(git_commit_time) \
    X(git_commit_tree) \
    X(git_commit_tree_id) \
    X(git_config_free) \
    X(git_config_get_bool) \
    X(git_config_get_int64) \
    X(git_config_iterator_free) \
    X(git_config_iterator_glob_new) \
    X(git_config_next) \
    X(git_credential_ssh_key_from_agent) \
    X(git_diff_find_similar) \
    X(git_diff_free) \
    X(git_diff_get_delta) \
    X(git_diff_num_deltas) \
    X(git_diff_options_init) \
    X(git_diff_tree_to_tree) \
    X(git_error_last) \
    X(git_fetch_options_init) \
    X(git_graph_descendant_of) \
    X(git_libgit2_init) \
    X(git_libgit2_opts) \
    X(git_libgit2_shutdown) \
    X(git_note_commit_create) \
    X(git_note_commit_iterator_new) \
    X(git_note_commit_read) \
    X(git_note_free) \
    X(git_note_id) \
    X(git_note_iterator_free) \
    X(git_note_message) \
    X(git_note_next) \
    X(git_object_free) \
    X(git_object_id) \
    X(git_object_peel) \
    X(git_object_type2string) \
    X(git_odb_exists) \
    X(git_odb_exists_ext) \
    X(git_odb_free) \
    X(git_odb_hash) \
    X(git_odb_hashfile) \
    X(git_odb_object_data) \
    X(git_odb_object_free) \
    X(git_odb_object_size) \
    X(git_odb_object_type) \
    X(git_odb_read) \
    X(git_odb_read_header) \
    X(git_odb_refresh) \
    X(git_odb_write_pack) \
    X(git_oid_cpy) \
    X(git_oid_equal) \
    X(git_oid_fromstr) \
    X(git_oid_tostr) \
    X(git_oid_tostr_s) \
    X(git_packbuilder_foreach) \
    X(git_packbuilder_free) \
    X(git_packbuilder_insert_walk) \
    X(git_packbuilder_new) \
    X(git_patch_free) \
    X(git_patch_from_diff) \
    X(git_patch_get_hunk) \
    X(git_patch_num_hunks) \
    X(git_push_options_init) \
    X(git_reference_create) \
    X(git_reference_create_matching) \
    X(git_reference_delete) \
    X(git_reference_free) \
    X(git_reference_iterator_free) \
    X(git_reference_iterator_glob_new) \
    X(git_reference_lookup) \
    X(git_reference_name) \
    X(git_reference_name_to_id) \
    X(git_reference_next) \
    X(git_remote_create_anonymous) \
    X(git_remote_fetch) \
    X(git_remote_free) \
    X(git_remote_lookup) \
    X(git_remote_push) \
    X(git_remote_url) \
    X(git_repository_config_snapshot) \
    X(git_repository__cleanup) \
    X(git_repository_free) \
    X(git_repository_item_path) \
    X(git_repository_odb) \
    X(git_repository_open) \
    X(git_repository_open_ext) \
    X(git_repository_path) \
    X(git_repository_workdir) \
    X(git_revparse_single) \
    X(git_revwalk_free) \
    X(git_revwalk_hide) \
    X(git_revwalk_new) \
    X(git_revwalk_next) \
    X(git_revwalk_push) \
    X(git_signature_default) \
    X(git_signature_free) \
    X(git_signature_now) \
    X(git_status_list_entrycount) \
    X(git_status_list_free) \
    X(git_status_list_new) \
    X(git_status_options_init) \
    X(git_tree_create_updated) \
    X(git_tree_entry_byindex) \
    X(git_tree_entry_filemode) \
    X(git_tree_entry_id) \
    X(git_tree_entry_name) \
    X(git_tree_entry_type) \
    X(git_tree_entrycount) \
    X(git_tree_free) \
    X(git_tree_id) \
    X(git_tree_lookup) \
    X(git_tree_walk) \
    X(git_treebuilder_free) \
    X(git_treebuilder_new) \
    X(git_treebuilder_write)

struct pg_git2 {
#define PG_GIT2_POINTER(f) __typeof__(f) *f;
    PG_GIT2_FUNCTIONS(PG_GIT2_POINTER)
#undef PG_GIT2_POINTER
};
extern struct pg_git2 pg_git2;

/* Opens libgit2 and finds its functions, once (thread-safe); before any
 * other call of it, git_libgit2_init included. Negative with the error set
 * when the library or one of its functions cannot be found (then every
 * later call says the same). */
int pg_git2_load(void);

/* Every call through its pointer (but in git2.c, which fills them). */
#ifndef PG_GIT2_LOADER
#define git_blob_create_from_buffer (*pg_git2.git_blob_create_from_buffer)
#define git_blob_free (*pg_git2.git_blob_free)
#define git_blob_lookup (*pg_git2.git_blob_lookup)
#define git_blob_rawcontent (*pg_git2.git_blob_rawcontent)
#define git_blob_rawsize (*pg_git2.git_blob_rawsize)
#define git_buf_dispose (*pg_git2.git_buf_dispose)
#define git_checkout_options_init (*pg_git2.git_checkout_options_init)
#define git_checkout_tree (*pg_git2.git_checkout_tree)
#define git_commit_create (*pg_git2.git_commit_create)
#define git_commit_free (*pg_git2.git_commit_free)
#define git_commit_lookup (*pg_git2.git_commit_lookup)
#define git_commit_parent_id (*pg_git2.git_commit_parent_id)
#define git_commit_parentcount (*pg_git2.git_commit_parentcount)
#define git_commit_summary (*pg_git2.git_commit_summary)
#define git_commit_time (*pg_git2.git_commit_time)
#define git_commit_tree (*pg_git2.git_commit_tree)
#define git_commit_tree_id (*pg_git2.git_commit_tree_id)
#define git_config_free (*pg_git2.git_config_free)
#define git_config_get_bool (*pg_git2.git_config_get_bool)
#define git_config_get_int64 (*pg_git2.git_config_get_int64)
#define git_config_iterator_free (*pg_git2.git_config_iterator_free)
#define git_config_iterator_glob_new (*pg_git2.git_config_iterator_glob_new)
#define git_config_next (*pg_git2.git_config_next)
#define git_credential_ssh_key_from_agent (*pg_git2.git_credential_ssh_key_from_agent)
#define git_diff_find_similar (*pg_git2.git_diff_find_similar)
#define git_diff_free (*pg_git2.git_diff_free)
#define git_diff_get_delta (*pg_git2.git_diff_get_delta)
#define git_diff_num_deltas (*pg_git2.git_diff_num_deltas)
#define git_diff_options_init (*pg_git2.git_diff_options_init)
#define git_diff_tree_to_tree (*pg_git2.git_diff_tree_to_tree)
#define git_error_last (*pg_git2.git_error_last)
#define git_fetch_options_init (*pg_git2.git_fetch_options_init)
#define git_graph_descendant_of (*pg_git2.git_graph_descendant_of)
#define git_libgit2_init (*pg_git2.git_libgit2_init)
#define git_libgit2_opts (*pg_git2.git_libgit2_opts)
#define git_libgit2_shutdown (*pg_git2.git_libgit2_shutdown)
#define git_note_commit_create (*pg_git2.git_note_commit_create)
#define git_note_commit_iterator_new (*pg_git2.git_note_commit_iterator_new)
#define git_note_commit_read (*pg_git2.git_note_commit_read)
#define git_note_free (*pg_git2.git_note_free)
#define git_note_id (*pg_git2.git_note_id)
#define git_note_iterator_free (*pg_git2.git_note_iterator_free)
#define git_note_message (*pg_git2.git_note_message)
#define git_note_next (*pg_git2.git_note_next)
#define git_object_free (*pg_git2.git_object_free)
#define git_object_id (*pg_git2.git_object_id)
#define git_object_peel (*pg_git2.git_object_peel)
#define git_object_type2string (*pg_git2.git_object_type2string)
#define git_odb_exists (*pg_git2.git_odb_exists)
#define git_odb_exists_ext (*pg_git2.git_odb_exists_ext)
#define git_odb_free (*pg_git2.git_odb_free)
#define git_odb_hash (*pg_git2.git_odb_hash)
#define git_odb_hashfile (*pg_git2.git_odb_hashfile)
#define git_odb_object_data (*pg_git2.git_odb_object_data)
#define git_odb_object_free (*pg_git2.git_odb_object_free)
#define git_odb_object_size (*pg_git2.git_odb_object_size)
#define git_odb_object_type (*pg_git2.git_odb_object_type)
#define git_odb_read (*pg_git2.git_odb_read)
#define git_odb_read_header (*pg_git2.git_odb_read_header)
#define git_odb_refresh (*pg_git2.git_odb_refresh)
#define git_odb_write_pack (*pg_git2.git_odb_write_pack)
#define git_oid_cpy (*pg_git2.git_oid_cpy)
#define git_oid_equal (*pg_git2.git_oid_equal)
#define git_oid_fromstr (*pg_git2.git_oid_fromstr)
#define git_oid_tostr (*pg_git2.git_oid_tostr)
#define git_oid_tostr_s (*pg_git2.git_oid_tostr_s)
#define git_packbuilder_foreach (*pg_git2.git_packbuilder_foreach)
#define git_packbuilder_free (*pg_git2.git_packbuilder_free)
#define git_packbuilder_insert_walk (*pg_git2.git_packbuilder_insert_walk)
#define git_packbuilder_new (*pg_git2.git_packbuilder_new)
#define git_patch_free (*pg_git2.git_patch_free)
#define git_patch_from_diff (*pg_git2.git_patch_from_diff)
#define git_patch_get_hunk (*pg_git2.git_patch_get_hunk)
#define git_patch_num_hunks (*pg_git2.git_patch_num_hunks)
#define git_push_options_init (*pg_git2.git_push_options_init)
#define git_reference_create (*pg_git2.git_reference_create)
#define git_reference_create_matching (*pg_git2.git_reference_create_matching)
#define git_reference_delete (*pg_git2.git_reference_delete)
#define git_reference_free (*pg_git2.git_reference_free)
#define git_reference_iterator_free (*pg_git2.git_reference_iterator_free)
#define git_reference_iterator_glob_new (*pg_git2.git_reference_iterator_glob_new)
#define git_reference_lookup (*pg_git2.git_reference_lookup)
#define git_reference_name (*pg_git2.git_reference_name)
#define git_reference_name_to_id (*pg_git2.git_reference_name_to_id)
#define git_reference_next (*pg_git2.git_reference_next)
#define git_remote_create_anonymous (*pg_git2.git_remote_create_anonymous)
#define git_remote_fetch (*pg_git2.git_remote_fetch)
#define git_remote_free (*pg_git2.git_remote_free)
#define git_remote_lookup (*pg_git2.git_remote_lookup)
#define git_remote_push (*pg_git2.git_remote_push)
#define git_remote_url (*pg_git2.git_remote_url)
#define git_repository_config_snapshot (*pg_git2.git_repository_config_snapshot)
#define git_repository__cleanup (*pg_git2.git_repository__cleanup)
#define git_repository_free (*pg_git2.git_repository_free)
#define git_repository_item_path (*pg_git2.git_repository_item_path)
#define git_repository_odb (*pg_git2.git_repository_odb)
#define git_repository_open (*pg_git2.git_repository_open)
#define git_repository_open_ext (*pg_git2.git_repository_open_ext)
#define git_repository_path (*pg_git2.git_repository_path)
#define git_repository_workdir (*pg_git2.git_repository_workdir)
#define git_revparse_single (*pg_git2.git_revparse_single)
#define git_revwalk_free (*pg_git2.git_revwalk_free)
#define git_revwalk_hide (*pg_git2.git_revwalk_hide)
#define git_revwalk_new (*pg_git2.git_revwalk_new)
#define git_revwalk_next (*pg_git2.git_revwalk_next)
#define git_revwalk_push (*pg_git2.git_revwalk_push)
#define git_signature_default (*pg_git2.git_signature_default)
#define git_signature_free (*pg_git2.git_signature_free)
#define git_signature_now (*pg_git2.git_signature_now)
#define git_status_list_entrycount (*pg_git2.git_status_list_entrycount)
#define git_status_list_free (*pg_git2.git_status_list_free)
#define git_status_list_new (*pg_git2.git_status_list_new)
#define git_status_options_init (*pg_git2.git_status_options_init)
#define git_tree_create_updated (*pg_git2.git_tree_create_updated)
#define git_tree_entry_byindex (*pg_git2.git_tree_entry_byindex)
#define git_tree_entry_filemode (*pg_git2.git_tree_entry_filemode)
#define git_tree_entry_id (*pg_git2.git_tree_entry_id)
#define git_tree_entry_name (*pg_git2.git_tree_entry_name)
#define git_tree_entry_type (*pg_git2.git_tree_entry_type)
#define git_tree_entrycount (*pg_git2.git_tree_entrycount)
#define git_tree_free (*pg_git2.git_tree_free)
#define git_tree_id (*pg_git2.git_tree_id)
#define git_tree_lookup (*pg_git2.git_tree_lookup)
#define git_tree_walk (*pg_git2.git_tree_walk)
#define git_treebuilder_free (*pg_git2.git_treebuilder_free)
#define git_treebuilder_new (*pg_git2.git_treebuilder_new)
#define git_treebuilder_write (*pg_git2.git_treebuilder_write)
#endif

#endif
