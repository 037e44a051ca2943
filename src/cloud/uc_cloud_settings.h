/* SPDX-License-Identifier: Apache-2.0 */
/* How the server reaches the clouds it vends credentials for: the
 * administrator's directives, read by every call. */
#ifndef UC_CLOUD_SETTINGS_H
#define UC_CLOUD_SETTINGS_H

struct uc_vend_cache;

typedef struct uc_cloud_settings {
    /* The server's own AWS identity, which credentials' roles trust
     * (UnicatAwsIamArn); shown as unity_catalog_iam_arn. */
    const char *aws_iam_arn;
    /* STS, when not the region's (UnicatAwsStsEndpoint). */
    const char *aws_sts_endpoint;
    /* Azure AD (UnicatAzureAuthority), NULL: login.microsoftonline.com. */
    const char *azure_authority;
    /* The blob endpoint of a storage account, with "{account}" where its
     * name goes (UnicatAzureBlobEndpoint), NULL:
     * https://{account}.blob.core.windows.net. */
    const char *azure_blob_endpoint;
    /* Google's token and downscoping endpoints (UnicatGcpTokenUri,
     * UnicatGcpStsUri), NULL: Google's own. */
    const char *gcp_token_uri;
    const char *gcp_sts_uri;
    /* Cloud Storage's JSON API and signed URLs (UnicatGcsEndpoint),
     * NULL: https://storage.googleapis.com. */
    const char *gcs_endpoint;
    /* Cloudflare's API (UnicatCloudflareApiBase), NULL: its own. */
    const char *cloudflare_api_base;
    /* The S3-compatible store the server reads s3:// tables from
     * (UnicatS3Endpoint), NULL: AWS's endpoint of the bucket's region;
     * whether buckets go in its path rather than its host name. */
    const char *s3_endpoint;
    int s3_path_style;
    const char *ca_file;           /* UnicatCloudCAFile, NULL: system CAs */
    long timeout_ms;               /* UnicatCloudTimeout */
    int lifetime_s;                /* of vended credentials */
    struct uc_vend_cache *cache;   /* of this process, NULL: none */
} uc_cloud_settings_t;

#endif
