// BLS12-381 Groth16 proofs made outside snarkd, in bellman's encoding (the one bellperson keeps):
// zcash-compressed points and the 192-byte proof A || B || C. The vectors are the
// esuwu/groth16-verifier-bls12381 test vectors as carried by gnark's bellman_test.go (converted
// from base64 to hex, nothing else changed): four valid proofs with 1, 0, 1 and 15 public inputs,
// and the first proof with another input, which must fail. Their verifying keys are alpha_g1,
// beta_g2, gamma_g2, delta_g2, then the IC points, all compressed; inputs are 32-byte big-endian.
// A file made by bellperson itself was not available offline, so this is the closest independent
// check of our decoders (ec/encoding.h, formats::decode_proof) and of the verifier.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/hex.h"
#include "ec/encoding.h"
#include "formats/bellperson.h"
#include "groth16/verifier.h"

namespace snarkd::formats {
namespace {

using E = ec::bls12_381::Engine;
using Fr = ec::bls12_381::Fr;

struct Vector {
  bool valid;
  const char* vk;
  const char* proof;
  const char* inputs;
};

// The first vector's key and proof, used twice.
const char* const kKeyOfFirst =
    "87093cf37814953282c97600e975996bc1fdff1288619689d3112cd0ce6140e331886a71a1cb97ffc99a4839"
    "9e0a4ddba3956268305d3bb641c4084b49ee64ff94c54321792efeca376b4b2a7c20a1632a075e8e2fc59d6d"
    "e3c8c130ae3ed24d0052a84d9ca52c36d27f4da472431c6500cf17d88687e242f7d3e2a3be2f0e9c13123531"
    "e6d43df60350c3150bb73b6ca8346c3e712f2af2e6b311edf0b4150641019b63c124563e3977f530d5b4db5b"
    "e20c1a51d74997e1643acebb062f92f4198e1cc1fe2d95b87e39b8adf8b9cdfd24139d111ff1f3e974a675b1"
    "afee8b7a468bc94c4fa8a8e03ed48e5c31d9174290117e8ac7cc7fbec70841ac640370d214ab3b6146835e12"
    "976eb12c022885d696f0eee011a6a0f09755019dce54b7790dfd4d919044afbe775dbf16c1a5ec26313bab1c"
    "0834bd4a76a038f848985b879d6fbf9af5b6c178e3ed6faed9c6616a8324cd4bfe286f16a17b33648e4d34ca"
    "db30b04360fff11ee9d581259c8b1fe406b1a5368cefd6e16bd1c9986628a3dd8a93a18b3e1196b7765d882c"
    "7c7b1f59fe6fe063932fed77641db8756d7f9b7f67db0a09fafebce9f5db356f395cffeb";
const char* const kProofOfFirst =
    "96f40b53f2aa80586c2e4b7fe42fec72ab3b9d647e798b723dd5a22d506ec7d19b953e0084760c74283041f4"
    "8972e76fb2057a7d7a0af8351246027ef8daadf96bdbec6958947a710b2b10873dba4d3bbc372a3bce99953c"
    "7f76f946266ef6d0092bd7d81856b6f91f1e6a83563992210e1150c7debde0352996d27fdf7d344e2a28af03"
    "a3ef285dc9933382d9566875ae5caace721d1573cdef1de90f813481bebfcbaf71b5630286ff7ae7814c834e"
    "5b01db9e2adf6e0380447006e991d1c5";

const Vector kVectors[] = {
    {true, kKeyOfFirst, kProofOfFirst,
     // public inputs
     "2dc313dce3a59072f32412822a38f3cd5320fabf85560779d8b96164f0784458"},
    {false, kKeyOfFirst, kProofOfFirst,
     // public inputs
     "726cd509c4559dc930dd050f8661b8064a697a0e0ae74a0343043d107f85ab5b"},
    {true,
     // verifying key
     "918602012f2f3364fdf46782af8b6843e890cef9797c8f3d98fae7718ab1dc2d5def90506c593c2ccb5c9cb5"
     "b09ed77a9279334b072c89a95c85e83af5e6583caf04cca45523916b4472a2f2b801f91e63c8f57bd1e8e660"
     "4c759de4e67d828e0d198046bfe577aa594f30566037eb0a4892d5007edeadccd3c39081870bcecfef8d6e1e"
     "a5eb430a69342b508419c59d87bc8bcddaabec71d034ea5923c99d8ffee5474201a81f73bd17f24ebfa0b941"
     "b6da4668e32d8a20d0e9dbbdb11a094a11e4e0953c720d4ae2649345ffe4fa17cc3bd0c47fad5f9f96fba8e8"
     "4274f8703e03666705b4e338897dc238ac055fb48e095de28029a403b3bd0edea08c76b5bbae29549d6c99ba"
     "e4a0f197f4fe6e86989e3466de899d1136276119371c086b01e5a979f5fe74cfe4ecfadc85e2279f11d4ca3c"
     "d2cea94dd37c588e0dbc91d75af45649695b102aa74427f4adf62bd7969efe74f0c839f9bbee1692167bebdf"
     "7570607fca6c86a57ce24f46f04bcea9470fc071ba735e6ccafa1abe92faefa7",
     // proof
     "b12b552ddcb1a889e6bfbea268d9d1141e3ae251aae3c8957aa6164a2da58a713d0d24f47d3361c529ef4970"
     "283e9b7cb45b1a9e3e6f3da7c2fa28ff161f7c74e52531b3b8d9b7f6f34a4e678966fb3afadc0594a4e388ba"
     "0493f92ea9abdcde074387a76358f17166ae23842a1c5e69b86e57cf658ea0838e585705e359c0ce73b62e33"
     "83cf4777c4db29cc38ea302c8c825ed928b0dd387b10b410291e6e717e747f41884a69ce49c79e3cf76f8db1"
     "89f1f4853a74a64a9f1d2bbbb27a1ad4",
     // public inputs
     ""},
    {true,
     // verifying key
     "998fff84421308109950950dff0b0e970d6251248e1122fa3c549b37569b18af34b798cf34808d94fb92a2b8"
     "a8e26996a5ffb8b8ecafde03d97b9e12606338a5f86d7aa269c05431765a705d6c98c4c4cd6922c38fc56d4a"
     "7fc425a4aef8fea71665ac75ade64d850f60c673584e2132aa438053dc261c37a6b02b3138433db4771f1ec4"
     "e8d440011d0ba9caddb6c6c3aaed93d2db68d6ba671482ddbc72f83ea1147d3985da690cf832a3ee52b0bef6"
     "546ee92a0702eb9e76dd7f2a9926bcb31803086b626f304318b331ac63288f5d9bd8c7a2ee939e2858e94eaf"
     "010aac263834c3f0721e836c5aba2a99cd490c0ea604580b3ef0a63939ed7f8d1899a8f39b5829cf9335ad6b"
     "4f8fc3c46f6fe921e4a579a63de1e1cc8216f0c39d9058f1079a3a427f056b473a4ede9baf683392b1abd5e2"
     "b9ffe462220133561711aea758fe9ecf2e6297a9ac2b12f22ff506778a3cad3cdc229e50bc5dd44b3bf62f3f"
     "7dcf8dc23d59231c1d5e8f38ff4a3cca35ae781a20f31e80a800bd3128b8d14aa78bf7c005d15d7e71123c17"
     "026339c3207f48039a3cf08afde9a5b3d92aa251ec6a3ee7b934dbaef495f1bab3530cd0",
     // proof
     "839dcdf1e728aef1b6b0380dbfc0fbaae56128c208a5d3fd06a93ff20995e5c27946193d80abdbe05d2597c2"
     "7f659255a9adbb3b2722270c7a9729ba42954af6ad404abaa2a3bac3e4f38c0c69bae086b2fe2c575e7fbffc"
     "5fae2a00d70038fd0324ab8b62758f7a8492aa9ede4c4ab61c3de03cc07d404f9dc1df4cf6b356d138f007f3"
     "075296640ed57ffc7fde9858b3872470fed9add55588954b6d4805cb9e3776929f107d8c0f7d192cb611870f"
     "126ad442c8826e4d970c965b84286f9d",
     // public inputs
     "699f2daab39e1092ade0032a89117f5898482930c2d077834e088954b67c384b"},
    {true,
     // verifying key
     "b51a6a1c1e07003b87014bc74dcaf3c66ab56b077010103418e25f79b613383c94a97050ec5918af3d680ef3"
     "f2c79677b1498e0d22570109801415674b6b7e5f37f9642af5802b4c889563438f3f9e86ff4a4ad2e1c4c71e"
     "36ca2154bd71d0ff046fd50eb66f06dfdd3ea5e675417216e4d332b5626a0479ed846b0e69b5aa6e4b43f03c"
     "57050176202bc204505c7f63b188605667dc4408c9cadadb61e47a724e197e61abeb1e9a90a8812d8e01d65f"
     "4b6874f2cffe8a48ce6df1ab69b91dc704965f6c19b6fcaf279d84e5fa6014fc49c837761075477ae47b1de0"
     "6b5fe954f6a9fcfa85cad2807badc51d6eb082f693253d5f82aa8f1e88eb363055b9fb3d66e2cb73ad636efb"
     "cf882022a5ba02e0e0cd4788c86f5ae2cb4c790d3b98e57f11fe1f6a3f9e87818944a8c99bb6944d82424801"
     "98ea494e5cda04cc1e785c5e04639a6430f7d6ef74a6c498bd074687919583cb6b73525c2fc59fc17ec0e451"
     "99edea623ea9d0ceb531ba24522d490668b58183066eb33dccf0a376401a9afc8226d313a0e34fb186343125"
     "dba8e0009dda01d06b7fb61bd2f584622cce24ae123bf51dfb8fd6c570dbcbbc5bc2515892012d61b30ee8f5"
     "e8ce146a0e2a2d27409f75213134703d037ee647f6e934e2b2840adfcaf4812099d44203b0e70301abe18e3f"
     "99fbf04f7d6b9ad8e055c65263372c6769fc2be41884d87f4e12587919004b9e607f7a62ce63ac7948650036"
     "93d8f4d898be48bf360c9147f0b0e1efb7e087dce1d30023080a98effafbdb8df844303dedb7c46496af4660"
     "0436c81f96c4956fc77dad0301a569775e46fc98d9543927fe2c05de5d8411e36678cae523c0052f93fffe8a"
     "6ba1b1617c642324a5bf7043fe9cad51f81391377fa21ffccb7f0dc7a75a53cdb6fbb608915ab5cf2adf5692"
     "7675a130df14eb9497dc3068b8373c1170c5779b70cb8556312e65858e956d4fe54bc4fca3286bf8d229b2db"
     "0a5264a1d04335ac6c948763cd808633a1e0739c759a829d963b79c86cd6087171113814fc429a80e03ab3c6"
     "febae63c1a8c65e601ac11bdd66accbaaf0a47ae8de929959628574697127604388bdf17b778c5acb7aa4c76"
     "36ca68a0ce07799a621e49c85a45158465490730432e32c18e21812be4c61df1fc39a75ec6175eb7b131c885"
     "a26d299a99642f7df664ca5dd69cca156d343794e92ce0c71adec539869d6231ea5dbb4acaa01874357730f4"
     "5f619228200c891134836adab96f532a4f8929a9f14f2d0d231e1b46154a8bc5940e03b230709ed247e39360"
     "35b63f45bbbf85f7bb42c913901893a3603e9266121fbe54bdfd94017c01013d4fa04d2caad627745d8a6ed8"
     "65e86ca55778fd3482ad2331ddfc6c25784c6e33b2a52351f6d8fefc6ebe739a1f03ed5d5a15cc4fa5fb5086"
     "3721e1a6d7bb110fe1a8607cd9ad85d8684af43290b8636e61bd06bbf09b268345dfec1c24de49798ba88c9b"
     "addead03c64b26ad832f328910e9667ccf5a22284b7bf14b9dd7e74d290d2b67ade28f2f33762302680e9eb0"
     "28ec9229",
     // proof
     "960154e09ca8f467472fbc37d6edf35dcf114119c755aad958d7ddd250f8e46bef42dc2b67563538a0784f6f"
     "5aefd51a80f1ce764d52d24d21600610cb23407d153375ed473fc47ed9d9acef98066449f1dad5dec4437e05"
     "58d125f0bc3d1d651496bac6fb04c79b92ace6732a6a0c7c2c1c039e52313e63168e3e2b25a0db03f93a714f"
     "c7b5d37442af7f9621a58d24ad02a2ab7394bbbf44c23345d71575fa22f1c762842322bb4526313b5047aca3"
     "86384cf14942b4d0c03e6151def83bd6",
     // public inputs
     "699f2daab39e1092ade0032a89117f5898482930c2d077834e088954b67c384b622cd8fb85f9457959cd5cf8"
     "2ec72a2a908fd5ee9189b570691f937e46cc10340d1bdb768cdf7687d07287396a0663f4ff2fb4d0cd814627"
     "7bd32e25c3159835395aa418e32fa808289ceac71a2e8881c00bc9433208a94be41418db749e20b26960aa25"
     "c9b24dc097db8f1a60d0ecfe0f67ebeebf572f518cbe06e5bb9d9b5504f57d1f2e09125f4ac800d8e1b0ea4f"
     "cca4a0c27cc7236d1f239d96bc44e12f178728866ee2575efcf15a76ff66dd704651412a1a195f293a603d12"
     "4ab3255440063903b28e347e741c9b62338c150eb17fae144c556a7e7afef97d559570074c2779edd4c62ade"
     "767d2439aca23c1d7aca29b15c20deb7e33ed142a39889665d8a64ac20eb1f4767e77c3e537387a8c4313c39"
     "d4a5807169d335788f31585171cda2e4bde81ad2ad03984aaec98d36ca24eaa3eed0e2a6895532e0bbaffc7a"
     "4ccfc462918bce3934bf20460693b4cde489d0f3210a72383643d3278464363533edec50a1dc564868c53401"
     "4ccc8a24f73e3390de04bdee69632bbf1b8beaaf3e5f4c5e06dfbd920b8f50db4862a5203c0697bccda2d38d"
     "5b5874c9d1d64bc832553b2cc669745a17898d900ba1e04b7a670e4fb8ea4c336988d6814a1198fb"},
};

std::vector<uint8_t> bytes_of(const char* hex) {
  auto bytes = from_hex(hex);
  EXPECT_TRUE(bytes.ok()) << bytes.status().to_string();
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

// The vector's verifying key: every point through our compressed decoders (with their curve and
// subgroup checks).
Result<groth16::VerifyingKey<E>> decode_vk(std::span<const uint8_t> in) {
  constexpr size_t kG1 = 48, kG2 = 96;
  if (in.size() < kG1 + 3 * kG2 + kG1 || (in.size() - 3 * kG2) % kG1 != 0) {
    return invalid_argument("test verifying key: " + std::to_string(in.size()) + " bytes");
  }
  groth16::VerifyingKey<E> vk;
  ASSIGN_OR_RETURN(vk.alpha1, ec::decode_compressed<ec::bls12_381::G1>(in.subspan(0, kG1)));
  ASSIGN_OR_RETURN(vk.beta2, ec::decode_compressed<ec::bls12_381::G2>(in.subspan(kG1, kG2)));
  ASSIGN_OR_RETURN(vk.gamma2, ec::decode_compressed<ec::bls12_381::G2>(in.subspan(kG1 + kG2, kG2)));
  ASSIGN_OR_RETURN(vk.delta2,
                   ec::decode_compressed<ec::bls12_381::G2>(in.subspan(kG1 + 2 * kG2, kG2)));
  for (size_t at = kG1 + 3 * kG2; at < in.size(); at += kG1) {
    ASSIGN_OR_RETURN(auto ic, ec::decode_compressed<ec::bls12_381::G1>(in.subspan(at, kG1)));
    vk.ic.push_back(ic);
  }
  return vk;
}

TEST(BellmanVectorsTest, ValidProofsVerifyAndOthersDoNot) {
  int valid = 0, invalid = 0;
  for (size_t n = 0; n < std::size(kVectors); ++n) {
    SCOPED_TRACE("vector " + std::to_string(n));
    const Vector& v = kVectors[n];
    const auto vk_bytes = bytes_of(v.vk), proof_bytes = bytes_of(v.proof),
               input_bytes = bytes_of(v.inputs);
    auto vk = decode_vk(vk_bytes);
    ASSERT_TRUE(vk.ok()) << vk.status().to_string();
    auto proof = decode_proof(proof_bytes);
    ASSERT_TRUE(proof.ok()) << proof.status().to_string();
    // Our encoder gives the vector's bytes back.
    const auto reencoded = encode_proof(*proof);
    EXPECT_EQ(std::vector<uint8_t>(reencoded.begin(), reencoded.end()), proof_bytes);
    ASSERT_EQ(input_bytes.size() % 32, 0u);
    std::vector<Fr> inputs;
    for (size_t at = 0; at < input_bytes.size(); at += 32) {
      auto x = Fr::from_bytes_be(std::span<const uint8_t>(input_bytes).subspan(at, 32));
      ASSERT_TRUE(x.has_value()) << "input " << at / 32 << " is not below r";
      inputs.push_back(*x);
    }
    auto ok = groth16::verify<E>(*vk, inputs, *proof);
    ASSERT_TRUE(ok.ok()) << ok.status().to_string();
    EXPECT_EQ(*ok, v.valid);
    (v.valid ? valid : invalid) += 1;
    if (v.valid && !inputs.empty()) {
      // The same proof with one input changed must fail.
      inputs[0] += Fr::one();
      auto changed = groth16::verify<E>(*vk, inputs, *proof);
      ASSERT_TRUE(changed.ok());
      EXPECT_FALSE(*changed);
    }
  }
  EXPECT_GE(valid, 3);
  EXPECT_GE(invalid, 1);
}

}  // namespace
}  // namespace snarkd::formats
