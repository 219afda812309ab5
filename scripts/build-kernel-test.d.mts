/** Types for scripts/build-kernel-test.mjs (see there). */
export declare const KERNEL_TEST_DIR: string;
export declare const KERNEL_TEST_SOURCE: string;
export declare const KERNEL_TEST_PATCHES: string[];
export declare const KERNEL_TEST_UNITS: string[];
export declare const KERNEL_TEST_FLAGS: string[];
export declare const KERNEL_TEST_EXPORTS: string[];
export declare function kernelTestDigest(): string;
