/**
 * An example request and answer of each identity endpoint passed through by
 * `abha-link serve` (/v1/service/...), for its OpenAPI document: taken from a
 * run of the flows against the mock (synthetic accounts, no real person;
 * tokens replaced by a placeholder). Each is checked against the endpoint's
 * request and response schemas by test/serve-openapi.test.ts.
 */
import type { Json } from '../mock/openapi.js';
import type { EndpointId } from '../spec/endpoints.js';

/** The identity endpoints of the spec (all but the token and the link call). */
type PassedThrough = Exclude<EndpointId, 'token' | 'link-carecontext'>;

/** The transaction id of the example flow. */
const TXN_ID = '836151ef-d014-4507-b605-4b8be215433e';
/** The placeholder for every token (a JWT's shape, no real signature). */
const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJleGFtcGxlIn0.c2lnbmF0dXJl';
/** The synthetic account the verifications answer with. */
const ACCOUNT: Json = {
  ABHANumber: '91-8253-3839-9800',
  preferredAbhaAddress: 'arjun.iyer08@sbx',
  name: 'Arjun Iyer',
  gender: 'M',
  dob: '1997-10-13',
  status: 'ACTIVE',
  profilePhoto: '',
  kycVerified: true,
  mobileVerified: true,
};

/** The answer of a verification that opens a session: a token, its refresh token and the account. */
const SESSION_ANSWER: Json = {
  success: true,
  message: 'OTP verified',
  data: {
    txnId: TXN_ID,
    authResult: 'success',
    token: JWT,
    expiresIn: 1800,
    refreshToken: JWT,
    refreshExpiresIn: 1296000,
    accounts: [ACCOUNT],
  },
};

/** The example request and answer of each endpoint passed through. */
export const SERVICE_EXAMPLES: Readonly<Record<PassedThrough, { readonly request: Json; readonly response: Json }>> = {
  'search-abha': {
    request: {
      mobile: '9000000001',
    },
    response: {
      success: true,
      message: '2 accounts found',
      data: [
        {
          txnId: TXN_ID,
          ABHA: [
            {
              index: 0,
              ABHANumber: 'xx-xxxx-xxxx-9800',
              name: 'A**** I***',
              gender: 'M',
              kycVerified: 'true',
              authMethods: ['MOBILE_OTP'],
            },
          ],
        },
      ],
    },
  },
  'request-otp': {
    request: {
      scope: ['abha-login'],
      loginHint: 'index',
      otpSystem: 'abdm',
      loginId: '0',
      txnId: TXN_ID,
    },
    response: {
      success: true,
      message: 'OTP sent',
      data: {
        txnId: TXN_ID,
        message: 'OTP sent to the mobile number ending in 0001',
      },
    },
  },
  'verify-otp': {
    request: {
      scope: ['abha-login'],
      txnId: TXN_ID,
      otp: '246810',
    },
    response: SESSION_ANSWER,
  },
  'mobile-login-verify-otp': {
    request: {
      txnId: TXN_ID,
      otp: '246810',
    },
    response: {
      success: true,
      message: 'OTP verified',
      data: {
        txnId: TXN_ID,
        authResult: 'success',
        token: JWT,
        expiresIn: 300,
        accounts: [ACCOUNT],
      },
    },
  },
  'mobile-login-abha-number-verify-otp': {
    request: {
      txnId: TXN_ID,
      otp: '246810',
    },
    response: {
      success: true,
      message: 'OTP verified',
      data: {
        txnId: TXN_ID,
        authResult: 'success',
        accounts: [ACCOUNT],
      },
    },
  },
  'aadhar-number-login-verify-otp': {
    request: {
      txnId: TXN_ID,
      otpValue: '246810',
      mobile: '9000000001',
    },
    response: SESSION_ANSWER,
  },
  'abha-address-login-verify-otp': {
    request: {
      txnId: TXN_ID,
      otpValue: '246810',
      mobile: '9000000001',
    },
    response: {
      success: true,
      message: 'OTP verified',
      data: {
        txnId: TXN_ID,
        message: 'login successful',
        authResult: 'success',
        users: [
          {
            abhaAddress: 'arjun.iyer08@sbx',
            fullName: 'Arjun Iyer',
            abhaNumber: '91-8253-3839-9800',
            status: 'ACTIVE',
            kycStatus: 'VERIFIED',
            age: 29,
          },
        ],
        tokens: {
          token: JWT,
          expiresIn: 1800,
          refreshToken: JWT,
          refreshExpiresIn: 1296000,
        },
      },
    },
  },
  'enroll-verify-otp': {
    request: {
      txnId: TXN_ID,
      otpValue: '246810',
      mobile: '9000000001',
    },
    response: {
      success: true,
      message: 'enrolment verified',
      data: {
        txnId: TXN_ID,
        tokens: {
          token: JWT,
          expiresIn: 1800,
          refreshToken: JWT,
          refreshExpiresIn: 1296000,
        },
        ABHAProfile: {
          ABHANumber: '91-8253-3839-9800',
          preferredAddress: 'arjun.iyer08@sbx',
          firstName: 'Arjun',
          middleName: '',
          lastName: 'Iyer',
          dob: '1997-10-13',
          gender: 'M',
          photo: '',
          mobile: '9000000001',
          email: 'arjun.iyer08@example.org',
          address: '166, Lake View Colony, Chennai',
          districtCode: '904',
          stateCode: '33',
          pinCode: '600001',
          stateName: 'Tamil Nadu',
          districtName: 'Chennai',
          abhaType: 'STANDARD',
          abhaStatus: 'ACTIVE',
          phrAddress: ['arjun.iyer08@sbx'],
        },
        isNew: false,
      },
    },
  },
  'fetch-abha-address-profile': {
    request: {
      token: JWT,
    },
    response: {
      success: true,
      message: 'profile fetched',
      data: {
        abhaAddress: 'arjun.iyer08@sbx',
        fullName: 'Arjun Iyer',
        profilePhoto: '',
        firstName: 'Arjun',
        lastName: 'Iyer',
        dateOfBirth: '1997-10-13',
        gender: 'M',
        mobile: '9000000001',
        abhaNumber: '91-8253-3839-9800',
        address: '166, Lake View Colony, Chennai',
        stateName: 'Tamil Nadu',
        districtName: 'Chennai',
        pinCode: '600001',
        status: 'ACTIVE',
        kycStatus: 'VERIFIED',
        authMethods: ['MOBILE_OTP'],
      },
    },
  },
  'get-profile': {
    request: {
      token: JWT,
    },
    response: {
      success: true,
      message: 'profile fetched',
      data: {
        ABHANumber: '91-8253-3839-9800',
        preferredAbhaAddress: 'arjun.iyer08@sbx',
        mobile: '9000000001',
        firstName: 'Arjun',
        lastName: 'Iyer',
        gender: 'M',
        status: 'ACTIVE',
        stateCode: '33',
        districtCode: '904',
        pincode: '600001',
        address: '166, Lake View Colony, Chennai',
        verificationStatus: 'VERIFIED',
        kycVerified: true,
        authMethods: ['MOBILE_OTP'],
      },
    },
  },
};
