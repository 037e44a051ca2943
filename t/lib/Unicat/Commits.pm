# SPDX-License-Identifier: Apache-2.0
package Unicat::Commits;
# The commit coordinator of catalog-managed Delta tables
# (/delta/preview/commits) as Delta's UCTokenBasedRestClient speaks to it:
# snake_case JSON, the GET's request as a JSON body. For the tests of the
# coordinator and of the readers that follow it.
#
#   my $t = coordinated({ catalog_name => $c, schema_name => 's' }, 'events');
#   commit($t, 1, file => staged(1, 'w1'), lbv => 0);
#   backfilled($t, 1);
#   versions_of(get_commits($t));     # [ ... ], newest first
use strict;
use warnings;

use Exporter ();
our @ISA = ('Exporter');
use Unicat::Test qw(api json_of create_object);

our @EXPORT = qw(
    col managed_table coordinated staged commit_body post_commit commit
    backfilled get_commits versions_of latest_of $COMMITS
);

our $COMMITS = '/delta/preview/commits';

sub col {
    my ($name, $pos, $type) = @_;
    $type //= 'INT';
    return { name => $name, type_text => lc $type, type_name => $type,
             position => $pos,
             type_json => qq({"name":"$name","type":"${\ lc $type}","nullable":true,"metadata":{}}) };
}

# managed_table(\%in, $name, %props): a managed table of $in's catalog and
# schema as Unity Catalog's Spark connector creates one: a staging table,
# then the table at its location, with %props as properties.
# coordinated(...): the same, created catalog-managed (with In-Commit
# Timestamps).
sub managed_table {
    my ($in, $name, %props) = @_;
    my $st = create_object('/staging-tables', { name => $name, %$in });
    return create_object('/tables', {
        name => $name, %$in, table_type => 'MANAGED',
        data_source_format => 'DELTA',
        storage_location => $st->{staging_location},
        properties => { 'io.unitycatalog.tableId' => $st->{id}, %props },
        columns => [ col('id', 0) ] });
}
sub coordinated {
    my ($in, $name, %props) = @_;
    return managed_table($in, $name, 'delta.feature.catalogManaged' => 'supported',
                         'delta.enableInCommitTimestamps' => 'true', %props);
}

# staged($v[, $tag]): the name of a staged commit file of version $v.
sub staged { sprintf '%020d.%s.json', $_[0], $_[1] // "$$-$_[0]" }

# commit_body($t, $v, %o): DeltaCommit, every field the client has; %o:
# file, uri, lbv, metadata, and the commit's timestamp, size and mtime.
sub commit_body {
    my ($t, $v, %o) = @_;
    return { table_id => $t->{table_id},
             table_uri => $o{uri} // $t->{storage_location},
             commit_info => { version => $v + 0,
                              timestamp => $o{timestamp} // 1700000000000 + $v,
                              file_name => $o{file} // staged($v),
                              file_size => $o{size} // 100 + $v,
                              file_modification_timestamp => $o{mtime} // 1700000000500 + $v },
             exists $o{lbv} ? (latest_backfilled_version => $o{lbv}) : (),
             $o{metadata} ? (metadata => $o{metadata}) : () };
}
sub post_commit {
    my ($body, %o) = @_;
    return api(POST => $COMMITS, body => $body,
               headers => [ Accept => 'application/json',
                            'User-Agent' => 'unitycatalog-java-client Delta/4.0.0' ], %o);
}
sub commit { my ($t, $v, %o) = @_; post_commit(commit_body($t, $v, %o), %o) }
sub backfilled {
    my ($t, $b, %o) = @_;
    return post_commit({ table_id => $t->{table_id}, table_uri => $t->{storage_location},
                         latest_backfilled_version => $b }, %o);
}
# DeltaGetCommits in a JSON body on a GET, as the client sends it.
sub get_commits {
    my ($t, $start, $end, %o) = @_;
    return api(GET => $COMMITS, body => { table_id => $t->{table_id},
                                          table_uri => $t->{storage_location},
                                          start_version => $start // 0,
                                          defined $end ? (end_version => $end) : () }, %o);
}
sub versions_of { [ map { $_->{version} } @{ (json_of($_[0]) // {})->{commits} // [] } ] }
sub latest_of { (json_of($_[0]) // {})->{latest_table_version} // -1 }

1;
